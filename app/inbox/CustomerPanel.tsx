/** Who the customer is: contact fields, the channel, and their other conversations. */
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from '../api.ts';
import { linkClick } from '../router.ts';
import type { ConversationDetail, ConversationListItem } from '../types.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { channelLabel } from '../channel-types.ts';
import { ChannelIcon } from '../ui/channels.tsx';
import { shortTime } from '../ui/time.ts';
import { inboxUrl } from './filters.ts';
import { loadThread } from './thread-store.ts';
import { can } from '../session.ts';
import { useAction } from '../ui/useAction.ts';
import { Notice } from '../ui/Notice.tsx';

function Row({ label, value }: { label: string; value: string | null | undefined }) {
  return (
    <div class="kv">
      <dt>{label}</dt>
      <dd>{value || <span class="muted">—</span>}</dd>
    </div>
  );
}

export function CustomerPanel({ conversation: c, open, onClose }: { conversation: ConversationDetail; open: boolean; onClose: () => void }) {
  const customer = c.customer;
  const [history, setHistory] = useState<ConversationListItem[] | null>(null);
  const [merges, setMerges] = useState(0);
  const merge = useAction(async (fromId: string) => {
    await api.post(`/api/v1/conversations/${c.id}/merge`, { from_conversation_id: fromId });
    setMerges((n) => n + 1);
    await loadThread(c.id);
  });
  useEffect(() => {
    setHistory(null);
    if (!c.customer_id) return;
    // An answer for the customer shown before (the agent moved on) must not land under this one.
    let current = true;
    api.get<ConversationListItem[]>(`/api/v1/conversations${qs({ customer_id: c.customer_id, limit: 20 })}`).then(
      (list) => current && setHistory(list),
      () => current && setHistory([]),
    );
    return () => {
      current = false;
    };
  }, [c.customer_id, c.status, merges]);
  const name = customer?.name || 'Visitor';
  const past = (history ?? []).filter((h) => h.id !== c.id);
  return (
    <aside class={`customer-panel${open ? ' open' : ''}`} aria-label="Customer">
      <button class="btn ghost small customer-close" onClick={onClose}>Hide details</button>
      <div class="customer-head">
        <Avatar name={name} size={48} />
        <div>
          <h2 class="customer-name">{name}</h2>
          <span class="muted small channel-line"><ChannelIcon type={c.channel_type} size={14} /> {channelLabel(c.channel_type)}</span>
        </div>
      </div>
      <dl class="kvs">
        <Row label="E-mail" value={customer?.email} />
        <Row label="Phone" value={customer?.phone} />
        <Row label="Platform id" value={customer?.external_id} />
        <Row label="Customer since" value={customer ? new Date(customer.created_at).toLocaleDateString() : null} />
      </dl>
      <h3 class="panel-title">Past conversations</h3>
      {history === null && c.customer_id ? (
        <p class="muted small">Loading…</p>
      ) : past.length === 0 ? (
        <p class="muted small">This is their first conversation.</p>
      ) : (
        <ul class="history">
          {past.map((h) => {
            const href = inboxUrl({ status: '' }, h.id);
            return (
              <li class="history-item">
                <a href={href} onClick={(e) => linkClick(e, href)}>
                  <span class={`pill status-${h.status}`}>{h.status}</span>
                  <span class="history-text">{h.last_message?.content ?? 'No messages'}</span>
                  <span class="muted small">{shortTime(h.updated_at)}</span>
                </a>
                {can('conversations.merge') && (
                  <button
                    class="btn ghost small"
                    type="button"
                    disabled={merge.busy}
                    title="Move that conversation's messages into the one open here, and close it"
                    onClick={() => confirm('Move that conversation\'s messages into this one and close it?') && merge.run(h.id)}
                  >
                    Merge here
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <Notice>{merge.error}</Notice>
    </aside>
  );
}
