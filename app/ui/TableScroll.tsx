/**
 * A wide table that scrolls sideways on a narrow screen. The scrolling box takes the keyboard's
 * focus (arrow keys scroll it) and is named, so it can be reached without a pointer (WCAG 2.1.1).
 */
import type { ComponentChildren } from 'preact';

export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be focusable to be scrolled by keyboard.
    <section class="table-scroll" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
