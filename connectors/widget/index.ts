/**
 * The embeddable website widget (api/routes/widgets, /widget.js): Parley itself is the platform.
 * One channel per widget, created with the widget; a reply reaches the visitor's open widgets
 * live over the /widget socket (core/domain/visitors/visitor-messages.ts), which the task publishes.
 */
import type { Connector } from '../types.ts';

const widget: Connector = {
  type: 'widget',
  label: 'Website widget',
  icon: { color: '#7650FF', path: 'M4 5h16v10H9l-5 4z M8 9h8 M8 12h5' },
  internal: true,
  onWidgetOnlyPlans: true,
  liveToVisitor: true,
  config: [{ key: 'widget_id', required: true, widget: true, label: 'Widget' }],
  routing: (config) => ({ routingKey: config.widget_id, verifyToken: null }),
  duplicateAccountMessage: 'This widget already has a channel',
  setup: {
    intro: "A website widget's channel is created with the widget: there is nothing to fill in here.",
    steps: ["Create a widget for your website's domain.", 'Paste its script tag into every page of your website.'],
  },
  send: async () => ({ externalId: null }),
};

export default widget;
