/**
 * Identity verification for one widget (owners and admins): the secret the business's server
 * signs signed-in users with, shown on request, and rotated (the old one stops working at once).
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Widget } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { CopyBox } from './Section.tsx';

type Secret = { widget_id: string; secret: string | null };

export function WidgetIdentity({ widget }: { widget: Widget }) {
  const [secret, setSecret] = useState<string | null | undefined>(undefined);
  const [rotated, setRotated] = useState(false);
  const show = useAction(async () => setSecret((await api.get<Secret>(`/api/v1/widget/${widget.id}/identity-secret`)).secret));
  const rotate = useAction(async () => {
    setSecret((await api.post<Secret>(`/api/v1/widget/${widget.id}/identity-secret/rotate`)).secret);
    setRotated(true);
  });
  return (
    <section class="stack-tight widget-identity" aria-label={`Identity verification for ${widget.domain}`}>
      <strong class="small">Identity verification</strong>
      <p class="small muted">
        Sign your signed-in users on your server so their conversations follow them to every device: pass{' '}
        <code>user_hash = HMAC-SHA256(secret, external_id or email)</code> to <code>Parley.identify()</code>. A wrong hash is refused.
      </p>
      {secret === undefined ? (
        <div>
          <button class="btn small" type="button" disabled={show.busy} onClick={() => void show.run()}>
            Show secret
          </button>
        </div>
      ) : secret === null ? (
        <p class="small">This widget has no secret yet: make one.</p>
      ) : (
        <CopyBox label="Identity secret" value={secret} />
      )}
      {rotated && <Notice kind="success">A new secret is in use: the old one no longer signs anything. Update your server.</Notice>}
      {secret !== undefined && (
        <div>
          <button
            class="btn small"
            type="button"
            disabled={rotate.busy}
            onClick={() => (secret === null || confirm('Make a new secret? Signatures made with the current one stop working at once.')) && void rotate.run()}
          >
            {secret === null ? 'Make a secret' : 'Rotate secret'}
          </button>
        </div>
      )}
      <Notice>{show.error ?? rotate.error}</Notice>
    </section>
  );
}
