/**
 * Who the customer is: contact fields and custom attributes (editable), the channel, their other
 * conversations, and the record's actions: merge a duplicate into them, export their data, erase
 * them (docs/decisions.md#customer-records). Each action shows only when `can` allows it.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from '../api.ts';
import { linkClick } from '../router.ts';
import { can } from '../session.ts';
import type { AttributeDefinition, AttributeValue, ConversationDetail, ConversationListItem, Customer, Visit } from '../types.ts';
import { attributeDefinitions, labelOf, loadAttributeDefinitions, shownValue } from '../customers/attribute-definitions.ts';
import { AttributeInput, AttributeKeySelect, parseAttribute } from '../customers/AttributeInput.tsx';
import { CustomerNotes } from '../customers/CustomerNotes.tsx';
import { Avatar } from '../ui/Avatar.tsx';
import { channelLabel } from '../channel-types.ts';
import { ChannelIcon } from '../ui/channels.tsx';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { HOUR, shortTime } from '../ui/time.ts';
import { useAction } from '../ui/useAction.ts';
import { inboxUrl } from './filters.ts';
import { loadThread } from './thread-store.ts';

function Row({ label, value }: { label: string; value: string | null | undefined }) {
  return (
    <div class="kv">
      <dt>{label}</dt>
      <dd>{value || <span class="muted">—</span>}</dd>
    </div>
  );
}

/** The visitor's local time now, in their time zone ("14:05"), or null when the zone is unknown. */
function localTime(timezone: string | null, now = new Date()): string | null {
  if (!timezone) return null;
  try {
    return now.toLocaleTimeString([], { timeZone: timezone, hour: HOUR, minute: '2-digit' });
  } catch {
    return null;
  }
}

/** Where a page is, shortly: its title, else its path. */
const pageName = (url: string, title: string | null) => {
  if (title) return title;
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return url;
  }
};

/** A website visitor's visit: page, referrer, browser and system, language, local time, pages seen. */
function VisitDetails({ customerId }: { customerId: number }) {
  const [visit, setVisit] = useState<Visit | null | undefined>(undefined);
  useEffect(() => {
    let current = true;
    setVisit(undefined);
    api.get<{ visit: Visit | null }>(`/api/v1/customers/${customerId}/visit`).then(
      (r) => current && setVisit(r.visit),
      () => current && setVisit(null),
    );
    return () => {
      current = false;
    };
  }, [customerId]);
  if (!visit) return null;
  const time = localTime(visit.timezone);
  const system = [visit.browser, visit.os].filter(Boolean).join(' on ');
  return (
    <section class="visit" aria-labelledby="visit-title">
      <h3 class="panel-title" id="visit-title">
        This visit
      </h3>
      <dl class="kvs">
        <div class="kv">
          <dt>Page</dt>
          <dd>
            {visit.page_url ? (
              <a href={visit.page_url} target="_blank" rel="noopener noreferrer">
                <bdi>{pageName(visit.page_url, visit.page_title)}</bdi>
              </a>
            ) : (
              <span class="muted">—</span>
            )}
          </dd>
        </div>
        <Row label="Came from" value={visit.referrer ? pageName(visit.referrer, null) : 'Direct or unknown'} />
        <Row label="Browser" value={system || null} />
        <Row label="Language" value={visit.language} />
        <Row label="Local time" value={time && `${time} (${visit.timezone})`} />
      </dl>
      {visit.pages.length > 0 && (
        <details class="visit-pages">
          <summary>
            {visit.pages.length} {visit.pages.length === 1 ? 'page' : 'pages'} seen
          </summary>
          <ol>
            {visit.pages.map((p) => (
              <li>
                <a href={p.url} target="_blank" rel="noopener noreferrer">
                  <bdi>{pageName(p.url, p.title)}</bdi>
                </a>{' '}
                <span class="muted small">{new Date(p.at).toLocaleTimeString([], { hour: HOUR, minute: '2-digit' })}</span>
              </li>
            ))}
          </ol>
        </details>
      )}
    </section>
  );
}

/** Name, e-mail and phone, edited in place. */
function DetailsForm({ customer, onDone }: { customer: Customer; onDone: () => void }) {
  const [name, setName] = useState(customer.name);
  const [email, setEmail] = useState(customer.email ?? '');
  const [phone, setPhone] = useState(customer.phone ?? '');
  const save = useAction(
    async () => {
      await api.patch(`/api/v1/customers/${customer.id}`, {
        ...(name.trim() && name.trim() !== customer.name ? { name: name.trim() } : {}),
        email: email.trim() || null,
        phone: phone.trim() || null,
      });
      onDone();
    },
    { fields: ['name', 'email', 'phone'] },
  );
  return (
    <form class="customer-form stack" onSubmit={save.onSubmit} aria-label="Edit customer" noValidate>
      <Field label="Name" error={save.fieldErrors.name} value={name} maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />
      <Field label="E-mail" error={save.fieldErrors.email} type="email" value={email} maxLength={254} onInput={(e) => setEmail(e.currentTarget.value)} />
      <Field label="Phone" error={save.fieldErrors.phone} type="tel" value={phone} maxLength={50} onInput={(e) => setPhone(e.currentTarget.value)} />
      <Notice>{save.error}</Notice>
      <div class="form-buttons">
        <button class="btn primary small" type="submit" disabled={save.busy}>
          Save
        </button>
        <button class="btn ghost small" type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * The custom attributes: listed (by label), removed one by one, added. With definitions
 * (Settings → Customer attributes) the key is picked from them and the value control follows its
 * type; without, any key with a text, number or yes/no value.
 */
function Attributes({ customer, editable, onChanged }: { customer: Customer; editable: boolean; onChanged: () => void }) {
  const definitions = attributeDefinitions.value ?? [];
  const typed = definitions.length > 0;
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [type, setType] = useState<'text' | 'number' | 'boolean'>('text');
  useEffect(() => void loadAttributeDefinitions(), []);
  const patch = useAction(async (attributes: Record<string, AttributeValue | null>) => {
    await api.patch(`/api/v1/customers/${customer.id}`, { attributes });
    onChanged();
  });
  const definition: AttributeDefinition | undefined = typed ? definitions.find((d) => d.key === key) : { key, label: key, type };
  const add = (event: Event) => {
    event.preventDefault();
    const k = key.trim();
    if (!k) return;
    const parsed = parseAttribute(definition, value);
    if ('error' in parsed) return patch.setError(parsed.error);
    void patch.run({ [k]: parsed.value }).then((ok) => {
      if (ok) {
        setKey('');
        setValue('');
      }
    });
  };
  const order = (k: string) => {
    const i = definitions.findIndex((d) => d.key === k);
    return i < 0 ? definitions.length : i;
  };
  const entries = Object.entries(customer.attributes ?? {}).sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b));
  return (
    <section class="attributes" aria-label="Attributes">
      <h3 class="panel-title">Attributes</h3>
      {entries.length === 0 ? (
        <p class="muted small">No attributes yet.</p>
      ) : (
        <dl class="kvs">
          {entries.map(([k, v]) => (
            <div class="kv attr" key={k}>
              <dt title={k}>{labelOf(k)}</dt>
              <dd>
                <span class="attr-value">{shownValue(v)}</span>
                {editable && (
                  <button class="btn ghost xsmall" type="button" aria-label={`Remove ${k}`} disabled={patch.busy} onClick={() => void patch.run({ [k]: null })}>
                    ×
                  </button>
                )}
              </dd>
            </div>
          ))}
        </dl>
      )}
      {/* Not before the definitions are known: the key control is a free text field without them and a picker with them. */}
      {editable && attributeDefinitions.value !== null && (
        <form class="attr-add" onSubmit={add} aria-label="Add attribute">
          {typed ? (
            <AttributeKeySelect
              definitions={definitions}
              label="Attribute name"
              value={key}
              onChange={(k) => {
                setKey(k);
                setValue('');
              }}
            />
          ) : (
            <>
              <input class="input" aria-label="Attribute name" placeholder="Name" value={key} maxLength={50} onInput={(e) => setKey(e.currentTarget.value)} />
              <select class="input" aria-label="Attribute type" value={type} onChange={(e) => setType(e.currentTarget.value as typeof type)}>
                <option value="text">Text</option>
                <option value="number">Number</option>
                <option value="boolean">Yes / no</option>
              </select>
            </>
          )}
          <AttributeInput definition={definition} value={value} onChange={setValue} />
          <button class="btn small" type="submit" disabled={patch.busy || !key.trim()}>
            Add
          </button>
        </form>
      )}
      <Notice>{patch.error}</Notice>
    </section>
  );
}

/** Search a duplicate and merge it into the customer shown. */
function MergeCustomer({ customer, onMerged }: { customer: Customer; onMerged: (moved: number) => void }) {
  const [q, setQ] = useState('');
  const [results, setResults] = useState<Customer[] | null>(null);
  const [chosen, setChosen] = useState<Customer | null>(null);
  useEffect(() => {
    if (!q.trim()) return setResults(null);
    let current = true;
    const timer = setTimeout(() => {
      api.get<Customer[]>(`/api/v1/customers${qs({ q: q.trim(), limit: 8 })}`).then(
        (list) => current && setResults(list.filter((c) => c.id !== customer.id)),
        () => current && setResults([]),
      );
    }, 200);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [q, customer.id]);
  const merge = useAction(async (from: Customer) => {
    const res = await api.post<{ conversations_moved: number }>(`/api/v1/customers/${customer.id}/merge`, { from_customer_id: from.id });
    onMerged(res.conversations_moved);
  });
  return (
    <div class="merge-box stack">
      <Field label="Find the duplicate" type="search" placeholder="Name, e-mail or phone" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
      {results && results.length === 0 && <p class="muted small">No other customer matches.</p>}
      {results && results.length > 0 && !chosen && (
        <ul class="merge-results" aria-label="Matching customers">
          {results.map((r) => (
            <li key={r.id}>
              <button class="merge-pick" type="button" onClick={() => setChosen(r)}>
                <Avatar name={r.name || 'Visitor'} size={28} />
                <span class="merge-who">
                  <strong>{r.name || 'Visitor'}</strong>
                  <span class="muted small">{[r.email, r.phone].filter(Boolean).join(' · ') || `#${r.id}`}</span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {chosen && (
        <div class="confirm-box" role="group" aria-label="Confirm merge">
          <p class="small">
            Merge <strong>{chosen.name || 'Visitor'}</strong> into <strong>{customer.name || 'this customer'}</strong>? Their conversations and channels move
            here and the other record is removed. This cannot be undone.
          </p>
          <div class="form-buttons">
            <button class="btn primary small" type="button" disabled={merge.busy} onClick={() => void merge.run(chosen)}>
              Merge
            </button>
            <button class="btn ghost small" type="button" onClick={() => setChosen(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <Notice>{merge.error}</Notice>
    </div>
  );
}

/** Downloads GET …/export as a file. */
async function downloadExport(customer: Customer): Promise<void> {
  const data = await api.get<unknown>(`/api/v1/customers/${customer.id}/export`);
  const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `customer-${customer.id}.json`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function CustomerPanel({ conversation: c, open, onClose }: { conversation: ConversationDetail; open: boolean; onClose: () => void }) {
  const customer = c.customer;
  const [history, setHistory] = useState<ConversationListItem[] | null>(null);
  const [editing, setEditing] = useState(false);
  const [merging, setMerging] = useState(false);
  const [erasing, setErasing] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  // Bumped when a merge (of customers or conversations) changed the customer's conversations.
  const [historyKey, setHistoryKey] = useState(0);
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
  }, [c.customer_id, c.status, historyKey]);
  useEffect(() => {
    setEditing(false);
    setMerging(false);
    setErasing(false);
    setDone(null);
  }, [c.customer_id]);
  const reload = () => void loadThread(c.id);
  // Merge conversations (POST /conversations/{id}/merge): another conversation of this customer into the one open here.
  const mergeConversation = useAction(async (fromId: string) => {
    await api.post(`/api/v1/conversations/${c.id}/merge`, { from_conversation_id: fromId });
    setHistoryKey((n) => n + 1);
    await loadThread(c.id);
  });
  const exporter = useAction(async () => customer && downloadExport(customer));
  const eraser = useAction(async () => {
    if (!customer) return;
    await api.delete(`/api/v1/customers/${customer.id}`);
    setErasing(false);
    setDone('The customer is being erased with all their conversations, messages and files.');
    reload();
  });
  const name = customer?.name || 'Visitor';
  const past = (history ?? []).filter((h) => h.id !== c.id);
  const canEdit = Boolean(customer) && can('customers.update');
  return (
    <aside class={`customer-panel${open ? ' open' : ''}`} aria-label="Customer">
      <button class="btn ghost small customer-close" onClick={onClose}>
        Hide details
      </button>
      <div class="customer-head">
        <Avatar name={name} size={48} />
        <div class="customer-head-text">
          <h2 class="customer-name">
            <bdi>{name}</bdi>
          </h2>
          <span class="muted small channel-line">
            <ChannelIcon type={c.channel_type} size={14} /> {channelLabel(c.channel_type)}
          </span>
        </div>
        {canEdit && !editing && (
          <button class="btn ghost small" type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
      </div>
      <Notice kind="success">{done}</Notice>
      {customer && editing ? (
        <DetailsForm
          customer={customer}
          onDone={() => {
            setEditing(false);
            reload();
          }}
        />
      ) : (
        <dl class="kvs">
          <Row label="E-mail" value={customer?.email} />
          <Row label="Phone" value={customer?.phone} />
          <Row label="Platform id" value={customer?.external_id} />
          <Row label="Customer since" value={customer ? new Date(customer.created_at).toLocaleDateString() : null} />
        </dl>
      )}
      {customer && c.channel_type === 'widget' && <VisitDetails customerId={customer.id} />}
      {customer && <Attributes customer={customer} editable={canEdit} onChanged={reload} />}
      {customer && can('customer_notes.read') && <CustomerNotes customer={customer} />}
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
                  <span class="history-text">{(h.preview_message ?? h.last_message)?.content ?? 'No messages'}</span>
                  <span class="muted small">{shortTime(h.updated_at)}</span>
                </a>
                {can('conversations.merge') && (
                  <button
                    class="btn ghost small"
                    type="button"
                    disabled={mergeConversation.busy}
                    title="Move that conversation's messages into the one open here, and close it"
                    onClick={() => confirm("Move that conversation's messages into this one and close it?") && mergeConversation.run(h.id)}
                  >
                    Merge here
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <Notice>{mergeConversation.error}</Notice>
      {customer && (can('customers.merge') || can('customers.export') || can('customers.erase')) && (
        <section class="customer-actions stack" aria-label="Customer record">
          <h3 class="panel-title">Record</h3>
          {can('customers.merge') && (
            <>
              <button class="btn small" type="button" aria-expanded={merging} onClick={() => setMerging(!merging)}>
                Merge a duplicate…
              </button>
              {merging && (
                <MergeCustomer
                  customer={customer}
                  onMerged={(moved) => {
                    setMerging(false);
                    setDone(`Merged: ${moved} conversation${moved === 1 ? '' : 's'} moved to ${name}.`);
                    setHistoryKey((k) => k + 1);
                    reload();
                  }}
                />
              )}
            </>
          )}
          {can('customers.export') && (
            <button class="btn small" type="button" disabled={exporter.busy} onClick={() => void exporter.run()}>
              Export data (JSON)
            </button>
          )}
          <Notice>{exporter.error}</Notice>
          {can('customers.erase') &&
            (erasing ? (
              <div class="confirm-box danger-box" role="group" aria-label="Confirm erasure">
                <p class="small">
                  Erase <strong>{name}</strong> and every conversation, message and file of theirs? The audit log keeps only that it happened. This cannot be
                  undone.
                </p>
                <div class="form-buttons">
                  <button class="btn danger small" type="button" disabled={eraser.busy} onClick={() => void eraser.run()}>
                    Erase permanently
                  </button>
                  <button class="btn ghost small" type="button" onClick={() => setErasing(false)}>
                    Cancel
                  </button>
                </div>
                <Notice>{eraser.error}</Notice>
              </div>
            ) : (
              <button class="btn danger small" type="button" onClick={() => setErasing(true)}>
                Erase customer…
              </button>
            ))}
        </section>
      )}
    </aside>
  );
}
