/** What visitors will see: the open widget panel and its bubble, in the chosen colour and words. */
import type { Widget } from '../types.ts';
import { textColorOn } from '../../widget/contrast.ts';

export type WidgetLook = Pick<Widget, 'welcome_heading' | 'welcome_tagline' | 'primary_color' | 'show_online_badge' | 'logo_url' | 'name'>;

export function WidgetPreview({ look }: { look: WidgetLook }) {
  const color = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(look.primary_color) ? look.primary_color : '#7650FF';
  // The text on it as the widget draws it: dark on a light colour, white on a dark one.
  const text = textColorOn(color);
  return (
    <figure class="widget-preview" aria-label="Widget preview">
      <div class="wp-panel">
        <div class="wp-head" style={{ background: color, color: text }}>
          {look.logo_url && <img class="wp-logo" src={look.logo_url} alt="" />}
          <div class="wp-heading">{look.welcome_heading || 'Hi there!'}</div>
          <div class="wp-tagline">{look.welcome_tagline}</div>
          {look.show_online_badge && (
            <div class="wp-online">
              <span class="dot live" /> We're online
            </div>
          )}
        </div>
        <div class="wp-body">
          <div class="wp-msg">Hello! How can we help you today?</div>
        </div>
        <div class="wp-input">Write a message…</div>
      </div>
      <div class="wp-bubble" style={{ background: color }} aria-hidden="true">
        <svg viewBox="0 0 24 24" width="26" height="26">
          <path d="M4 5h16v10H9l-5 4z" fill={text} />
        </svg>
      </div>
    </figure>
  );
}
