/** The website widget: create one per site, tune its look, copy the snippet that embeds it. */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { can } from '../session.ts';
import type { Widget } from '../types.ts';
import { useLoad } from '../ui/useLoad.ts';
import { CopyBox, Section } from './Section.tsx';
import { WidgetForm } from './WidgetForm.tsx';
import { WidgetIdentity } from './WidgetIdentity.tsx';

/** The business's widgets, oldest first, in one request. */
const loadWidgets = () => api.get<Widget[]>('/api/v1/widget/');

const snippet = (w: Widget) => `<script src="${location.origin}/widget.js" data-widget-id="${w.id}" async></script>`;

function WidgetCard({ widget: w, onSaved }: { widget: Widget; onSaved: () => void }) {
  const [editing, setEditing] = useState(false);
  if (editing) return <WidgetForm widget={w} onSaved={() => (setEditing(false), onSaved())} onCancel={() => setEditing(false)} />;
  return (
    <li class="card stack" aria-label={`Widget for ${w.domain}`}>
      <div class="card-row">
        <span class="swatch" style={{ background: w.primary_color }} aria-hidden="true" />
        <div class="grow">
          <div class="card-title">{w.name}</div>
          <div class="small muted">{w.domain}</div>
        </div>
        {can('widgets.manage') && (
          <button class="btn small" onClick={() => setEditing(true)}>
            Edit
          </button>
        )}
      </div>
      <p class="small">
        Paste this just before <code>&lt;/body&gt;</code> on every page of {w.domain}:
      </p>
      <CopyBox label="Embed snippet" value={snippet(w)} multiline />
      {can('widget_identity.manage') && <WidgetIdentity widget={w} />}
    </li>
  );
}

export function WidgetSettings() {
  const { data, error, reload } = useLoad(loadWidgets);
  const [creating, setCreating] = useState(false);
  const list = data ?? [];
  return (
    <Section
      title="Website widget"
      intro="A chat bubble on your website. Visitors' messages arrive in the inbox in real time; your replies appear on their screen instantly."
      error={error}
      loading={!data}
    >
      <ul class="cards">
        {list.map((w) => (
          <WidgetCard key={w.id} widget={w} onSaved={() => void reload()} />
        ))}
      </ul>
      {!can('widgets.manage') ? (
        list.length === 0 && <p class="muted">No widget yet. The workspace owner can create one here.</p>
      ) : creating || list.length === 0 ? (
        <>
          <h3 class="subhead">{list.length ? 'Add a widget for another site' : 'Create your widget'}</h3>
          <WidgetForm onSaved={() => (setCreating(false), void reload())} onCancel={list.length ? () => setCreating(false) : undefined} />
        </>
      ) : (
        <button class="btn" onClick={() => setCreating(true)}>
          Add a widget for another site
        </button>
      )}
    </Section>
  );
}
