/** The audit log: who changed settings, members, channels, keys, webhooks and the plan, newest first. */
import { useEffect, useState } from 'preact/hooks';
import { getPage } from '../api.ts';
import type { AuditEntry } from '../types.ts';
import { Notice } from '../ui/Notice.tsx';
import { shortTime } from '../ui/time.ts';
import { useAction } from '../ui/useAction.ts';
import { Section } from './Section.tsx';

const ACTIONS: Record<string, string> = {
  'business.updated': 'changed the business settings',
  'member.invited': 'added a team member',
  'member.removed': 'removed a team member',
  'member.left': 'left the team',
  'channel.created': 'connected a channel',
  'channel.updated': 'changed a channel',
  'channel.deleted': 'deleted a channel',
  'api_key.created': 'created an API key',
  'api_key.revoked': 'revoked an API key',
  'webhook.created': 'added a webhook',
  'webhook.updated': 'changed a webhook',
  'webhook.deleted': 'deleted a webhook',
  'webhook.disabled': 'disabled a failing webhook',
  'plan.changed': 'changed the plan',
};

/** The few details worth a line: names, URLs, plans, roles (never secrets: the server keeps none). */
function summary(e: AuditEntry): string {
  const d = e.details;
  const parts = [d.name, d.url, d.email, d.role, d.type, d.plan].filter((v): v is string => typeof v === 'string');
  if (d.changed && typeof d.changed === 'object' && !Array.isArray(d.changed)) parts.push(Object.keys(d.changed).join(', '));
  return parts.join(' · ');
}

export function AuditLog() {
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getPage<AuditEntry>('/api/v1/audit-log?limit=50').then(
      (p) => {
        setEntries(p.items);
        setNext(p.next);
      },
      (e: Error) => setError(e.message),
    );
  }, []);
  const more = useAction(async () => {
    const p = await getPage<AuditEntry>(`/api/v1/audit-log?limit=50&before=${encodeURIComponent(next ?? '')}`);
    setEntries([...(entries ?? []), ...p.items]);
    setNext(p.next);
  });
  return (
    <Section
      title="Audit log"
      intro="Who changed what in this workspace: settings, team, channels, API keys, webhooks and plan."
      error={error}
      loading={entries === null}
    >
      <ul class="cards" aria-label="Audit log">
        {(entries ?? []).map((e) => (
          <li class="card stack-tight" aria-label={`${e.actor.name} ${ACTIONS[e.action] ?? e.action}`}>
            <div class="break">
              <strong>{e.actor.name}</strong> {ACTIONS[e.action] ?? e.action}
            </div>
            <div class="small muted break">
              {shortTime(e.created_at)}
              {summary(e) ? ` · ${summary(e)}` : ''}
            </div>
          </li>
        ))}
      </ul>
      {entries?.length === 0 && <p class="muted">Nothing recorded yet.</p>}
      <Notice>{more.error}</Notice>
      {next && (
        <button class="btn" disabled={more.busy} onClick={() => void more.run()}>
          Show older
        </button>
      )}
    </Section>
  );
}
