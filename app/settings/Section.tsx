/** A settings page: title, what it is for, then its content (or loading / error). */
import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';
import { Notice } from '../ui/Notice.tsx';
import { CopyButton } from '../ui/CopyButton.tsx';

export function Section({
  title,
  intro,
  error,
  loading,
  children,
}: {
  title: string;
  intro?: ComponentChildren;
  error?: string | null;
  loading?: boolean;
  children?: ComponentChildren;
}) {
  return (
    <section class="section" aria-labelledby="section-title">
      <h2 id="section-title" class="section-title">
        {title}
      </h2>
      {intro && <p class="section-intro muted">{intro}</p>}
      {error ? <Notice>{error}</Notice> : loading ? <div class="spinner" role="status" aria-label="Loading" /> : children}
    </section>
  );
}

/** A value to copy (URLs, tokens, the embed snippet). */
export function CopyBox({ label, value, multiline }: { label: string; value: string; multiline?: boolean }) {
  const shown = useRef<HTMLElement>(null);
  return (
    <div class="copy-box">
      <span class="field-label">{label}</span>
      <div class="copy-row">
        {multiline ? (
          <pre class="code" aria-label={label} ref={shown as never}>
            {value}
          </pre>
        ) : (
          <code class="code" aria-label={label} ref={shown}>
            {value}
          </code>
        )}
        <CopyButton text={value} label={`Copy ${label.toLowerCase()}`} select={() => shown.current} />
      </div>
    </div>
  );
}
