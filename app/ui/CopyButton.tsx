/**
 * A Copy button that says what happened: "Copied" for two seconds, or, when the browser copied
 * nothing, "Press Ctrl+C" with the text selected in `select` (if given) so the keyboard can.
 * The outcome is announced (role="status").
 */
import { useEffect, useState } from 'preact/hooks';
import { copyText } from './copy.ts';

export function CopyButton({
  text,
  label,
  select,
  class: className = 'btn small',
}: {
  text: string;
  label?: string;
  select?: () => HTMLElement | null;
  class?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), state === 'copied' ? 2000 : 6000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    if (await copyText(text)) return setState('copied');
    setState('failed');
    const target = select?.();
    if (target) {
      const range = document.createRange();
      range.selectNodeContents(target);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
    }
  };
  return (
    <>
      <button type="button" class={className} onClick={() => void copy()} aria-label={label && state === 'copied' ? label.replace(/^Copy\b/, 'Copied') : label}>
        {state === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span class="visually-hidden" role="status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Could not copy: press Ctrl+C to copy the selected text' : ''}
      </span>
      {state === 'failed' && <span class="small muted copy-failed">Press Ctrl+C</span>}
    </>
  );
}
