import { z } from '../../../lib/zod.ts';
import { cursorParam } from '../../cursor.ts';
import { intParam } from '../../validation.ts';

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
};

const domain = z.string().trim().toLowerCase().min(1).max(253).openapi({ description: 'Trimmed and lower-cased', example: 'shop.example.com' });
const name = z.string().trim().min(1).max(100);
const welcomeHeading = z.string().trim().max(200);
const welcomeTagline = z.string().trim().max(500);
const primaryColor = z
  .string()
  .trim()
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'must be a hex color: #RGB or #RRGGBB')
  .openapi({ example: '#7650FF' });
const logoUrl = z.string().trim().max(2048).refine(isHttpUrl, 'must be an http or https URL').nullable();
/** A widget's free-form `config` is at most this many bytes as JSON (every page load of the widget reads it). */
export const WIDGET_CONFIG_MAX_BYTES = 16 * 1024;
const widgetConfig = z
  .record(z.string(), z.unknown())
  .refine((value) => Buffer.byteLength(JSON.stringify(value), 'utf8') <= WIDGET_CONFIG_MAX_BYTES, {
    message: `config may be at most ${WIDGET_CONFIG_MAX_BYTES / 1024} KB as JSON`,
    params: { type: 'too_long' },
  })
  .openapi({ description: `Free-form settings for the embedded widget, at most ${WIDGET_CONFIG_MAX_BYTES / 1024} KB as JSON` });

export const createWidgetBody = z.object({
  domain,
  name: name.default('Chat Widget'),
  welcome_heading: welcomeHeading.default('Hi there!'),
  welcome_tagline: welcomeTagline.default('We make it simple to connect with us. Ask us anything, or share your feedback.'),
  primary_color: primaryColor.default('#7650FF'),
  show_online_badge: z.boolean().default(true),
  logo_url: logoUrl.default(null),
  config: widgetConfig.default({}),
});

export const updateWidgetBody = z.object({
  domain: domain.optional(),
  name: name.optional(),
  welcome_heading: welcomeHeading.optional(),
  welcome_tagline: welcomeTagline.optional(),
  primary_color: primaryColor.optional(),
  show_online_badge: z.boolean().optional(),
  logo_url: logoUrl.optional().openapi({ description: '`null` removes the logo' }),
  config: widgetConfig.optional().openapi({ description: 'Replaces the stored config when given' }),
});

export const widgetIdParams = z.object({ widget_id: z.uuid() });

/** Public reads answer 404 for any id that names no widget, malformed ones included. */
export const publicWidgetIdParams = z.object({ widget_id: z.string() });

export const listWidgetsQuery = z.object({
  limit: intParam({ min: 1, max: 200 }).default(50).openapi({ default: 50 }),
  cursor: cursorParam.optional(),
});
