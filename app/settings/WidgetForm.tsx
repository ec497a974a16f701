/** Create or edit a widget, with a live preview beside the fields. */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Widget } from '../types.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { WidgetPreview } from './WidgetPreview.tsx';

const DEFAULTS = {
  name: 'Chat Widget',
  domain: '',
  welcome_heading: 'Hi there!',
  welcome_tagline: 'We make it simple to connect with us. Ask us anything, or share your feedback.',
  primary_color: '#7650FF',
  show_online_badge: true,
  logo_url: null as string | null,
};

export function WidgetForm({ widget, onSaved, onCancel }: { widget?: Widget; onSaved: (w: Widget) => void; onCancel?: () => void }) {
  const [v, setV] = useState(widget ? { ...DEFAULTS, ...widget } : DEFAULTS);
  const set = (patch: Partial<typeof DEFAULTS>) => setV({ ...v, ...patch });
  const act = useAction(async () => {
    const body = { ...v, logo_url: v.logo_url?.trim() || null };
    const saved = widget ? await api.put<Widget>(`/api/v1/widget/update/${widget.id}`, body) : await api.post<Widget>('/api/v1/widget/create', body);
    onSaved(saved);
  });
  return (
    <div class="widget-editor">
      <form class="stack grow" onSubmit={act.onSubmit} aria-label={widget ? 'Edit widget' : 'Create a widget'}>
        <Field
          label="Website domain"
          required
          placeholder="shop.example.com"
          hint="The site the widget is embedded on."
          value={v.domain}
          onInput={(e) => set({ domain: e.currentTarget.value })}
        />
        <Field label="Widget name" value={v.name} onInput={(e) => set({ name: e.currentTarget.value })} />
        <Field label="Welcome heading" maxLength={200} value={v.welcome_heading} onInput={(e) => set({ welcome_heading: e.currentTarget.value })} />
        <label class="field">
          <span class="field-label">Welcome tagline</span>
          <textarea class="input" rows={2} value={v.welcome_tagline} onInput={(e) => set({ welcome_tagline: e.currentTarget.value })} />
        </label>
        <div class="row">
          <label class="field">
            <span class="field-label">Colour</span>
            <input
              class="color"
              type="color"
              value={v.primary_color.length === 7 ? v.primary_color : '#7650FF'}
              onInput={(e) => set({ primary_color: e.currentTarget.value })}
            />
          </label>
          <Field label="Logo URL" placeholder="https://… (optional)" value={v.logo_url ?? ''} onInput={(e) => set({ logo_url: e.currentTarget.value })} />
        </div>
        <label class="check">
          <input type="checkbox" checked={v.show_online_badge} onChange={(e) => set({ show_online_badge: e.currentTarget.checked })} />
          Show "We're online" when a teammate is available
        </label>
        <Notice>{act.error}</Notice>
        <div class="row-end">
          {onCancel && (
            <button type="button" class="btn ghost" onClick={onCancel}>
              Cancel
            </button>
          )}
          <button type="submit" class="btn primary" disabled={act.busy}>
            {widget ? 'Save widget' : 'Create widget'}
          </button>
        </div>
      </form>
      <WidgetPreview look={v} />
    </div>
  );
}
