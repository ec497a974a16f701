import type { ComponentChildren } from 'preact';

/** An inline message: errors are announced (role=alert), successes politely. */
export function Notice({ kind = 'error', children }: { kind?: 'error' | 'success' | 'info'; children: ComponentChildren }) {
  if (!children) return null;
  return (
    <div class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}
