/**
 * Customers: every customer of the business, newest first, searched by name, e-mail or phone
 * and filtered by attribute (`attr.<key>=<value>`), a page at a time; owners and admins export
 * them all as CSV and import a CSV (upsert by e-mail or phone, per-row errors shown).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, download, getPage, qs } from '../api.ts';
import { can } from '../session.ts';
import type { Customer, CustomerImportResult } from '../types.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { attributeDefinitions, labelOf, loadAttributeDefinitions, shownValue } from './attribute-definitions.ts';
import { AttributeInput, AttributeKeySelect, parseAttribute } from './AttributeInput.tsx';
import { usePageTitle } from '../shell/title.ts';

const PAGE = 50;

type Filter = { key: string; value: string };

function query(q: string, filter: Filter | null, before: string | null) {
  return qs({ q: q.trim(), limit: PAGE, before, ...(filter ? { [`attr.${filter.key}`]: filter.value } : {}) });
}

function CustomerRow({ customer: c }: { customer: Customer }) {
  const attributes = Object.entries(c.attributes ?? {});
  return (
    <li class="customer-row" aria-label={c.name || 'Visitor'}>
      <Avatar name={c.name || 'Visitor'} size={32} />
      <div class="customer-row-main">
        <strong class="customer-row-name" dir="auto">
          {c.name || 'Visitor'}
        </strong>
        <span class="small muted break">{[c.email, c.phone].filter(Boolean).join(' · ') || `#${c.id}`}</span>
        {attributes.length > 0 && (
          <ul class="attr-chips" aria-label={`Attributes of ${c.name || 'Visitor'}`}>
            {attributes.map(([k, v]) => (
              <li class="attr-chip">
                <span class="muted">{labelOf(k)}:</span> {shownValue(v)}
              </li>
            ))}
          </ul>
        )}
      </div>
    </li>
  );
}

/** Export and import, for the owner and admins. */
function CsvTools({ onImported }: { onImported: () => void }) {
  const [result, setResult] = useState<CustomerImportResult | null>(null);
  const exporter = useAction(() => download('/api/v1/customers/export.csv', 'customers.csv'));
  const importer = useAction(async (file: File) => {
    const form = new FormData();
    form.append('file', file, file.name);
    setResult(await api.upload<CustomerImportResult>('/api/v1/customers/import', form));
    onImported();
  });
  return (
    <div class="csv-tools stack-tight">
      <div class="row-wrap">
        {can('customers.export_all') && (
          <button class="btn small" type="button" disabled={exporter.busy} onClick={() => void exporter.run()}>
            Export CSV
          </button>
        )}
        {can('customers.import') && (
          <label class="btn small file-button">
            Import CSV
            <input
              type="file"
              accept=".csv,text/csv"
              aria-label="Import customers from a CSV file"
              disabled={importer.busy}
              onChange={(e) => {
                const file = e.currentTarget.files?.[0];
                e.currentTarget.value = '';
                if (file) void importer.run(file);
              }}
            />
          </label>
        )}
      </div>
      <Notice>{exporter.error ?? importer.error}</Notice>
      {result && (
        <div class="card stack-tight import-result" role="status" aria-label="Import result">
          <strong>
            Imported: {result.created} new, {result.updated} updated
            {result.errors.length ? `, ${result.errors.length} problem${result.errors.length === 1 ? '' : 's'} (those rows were skipped)` : ''}.
          </strong>
          {result.errors.length > 0 && (
            <ul class="import-errors small">
              {result.errors.slice(0, 50).map((e) => (
                <li>
                  Line {e.line}
                  {e.column ? `, ${e.column}` : ''}: {e.msg}
                </li>
              ))}
            </ul>
          )}
          <div class="row-end">
            <button class="btn ghost small" type="button" onClick={() => setResult(null)}>
              Dismiss
            </button>
          </div>
        </div>
      )}
    </div>
  );
}

export function Customers() {
  usePageTitle('Customers');
  const definitions = attributeDefinitions.value ?? [];
  const [q, setQ] = useState('');
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [filter, setFilter] = useState<Filter | null>(null);
  const [items, setItems] = useState<Customer[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  useEffect(() => void loadAttributeDefinitions(), []);
  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      getPage<Customer>(`/api/v1/customers${query(q, filter, null)}`).then(
        (page) => current && (setItems(page.items), setNext(page.next), setError(null)),
        (e: Error) => current && setError(e.message),
      );
    }, 200);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [q, filter, reloads]);
  const more = useAction(async () => {
    const page = await getPage<Customer>(`/api/v1/customers${query(q, filter, next)}`);
    setItems([...(items ?? []), ...page.items]);
    setNext(page.next);
  });
  const definition = definitions.find((d) => d.key === key) ?? (key ? { key, label: key, type: 'text' as const } : undefined);
  const apply = (event: Event) => {
    event.preventDefault();
    if (!key.trim()) return;
    const parsed = parseAttribute(definition, value);
    if ('error' in parsed) return setError(parsed.error);
    setFilter({ key: key.trim(), value: String(parsed.value) });
  };
  return (
    <div class="page customers-page">
      <header class="page-head">
        <h1 class="page-title">Customers</h1>
        <CsvTools onImported={() => setReloads((n) => n + 1)} />
      </header>
      <div class="customer-filters">
        <input
          class="input"
          type="search"
          aria-label="Search customers"
          placeholder="Name, e-mail or phone"
          value={q}
          onInput={(e) => setQ(e.currentTarget.value)}
        />
        {/* Not before the definitions are known: the attribute is a free text field without them and a picker with them. */}
        {attributeDefinitions.value !== null && (
          <form class="attr-filter" aria-label="Filter by attribute" onSubmit={apply}>
            {definitions.length > 0 ? (
              <AttributeKeySelect
                definitions={definitions}
                label="Filter attribute"
                value={key}
                onChange={(k) => {
                  setKey(k);
                  setValue('');
                }}
              />
            ) : (
              <input
                class="input"
                aria-label="Filter attribute"
                placeholder="Attribute"
                value={key}
                maxLength={50}
                onInput={(e) => setKey(e.currentTarget.value)}
              />
            )}
            <AttributeInput definition={definition} value={value} onChange={setValue} label="Filter value" />
            <button class="btn small" type="submit" disabled={!key.trim()}>
              Filter
            </button>
            {filter && (
              <button
                class="btn ghost small"
                type="button"
                onClick={() => {
                  setFilter(null);
                  setError(null);
                }}
              >
                Clear filter
              </button>
            )}
          </form>
        )}
      </div>
      {filter && (
        <p class="small muted" role="status">
          Showing customers whose {labelOf(filter.key)} is {filter.value}.
        </p>
      )}
      <Notice>{error ?? more.error}</Notice>
      {items === null ? (
        <div class="spinner" role="status" aria-label="Loading" />
      ) : items.length === 0 ? (
        <p class="muted">No customers match.</p>
      ) : (
        <ul class="customer-list" aria-label="Customers">
          {items.map((c) => (
            <CustomerRow key={c.id} customer={c} />
          ))}
        </ul>
      )}
      {next && (
        <button class="btn" type="button" disabled={more.busy} onClick={() => void more.run()}>
          Show more
        </button>
      )}
    </div>
  );
}
