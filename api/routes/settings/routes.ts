/** Routing settings: auto-assignment with capacity, business hours and the out-of-hours auto-responder. */
import { loadAssignmentSettings, updateAssignmentSettings } from '../../../core/commands/assignment-settings.ts';
import { fullWeek, hoursStatus, loadBusinessHours, updateBusinessHours, type BusinessHoursSettings } from '../../../core/commands/business-hours.ts';
import { runCommand } from '../../../core/commands/run-command.ts';
import { changingSettings } from '../../../core/events/domain.ts';
import { defineRoute } from '../../route.ts';
import securityRoutes from './security.ts';
import { assignmentSettingsSchema, businessHoursSchema, updateAssignmentBody, updateBusinessHoursBody } from './schema.ts';

const tags = ['Settings'];

export const readAssignment = defineRoute({
  method: 'get',
  path: '/api/v1/settings/assignment',
  summary: 'Auto-assignment settings',
  description:
    "Whether auto-assignment is on, the business's capacity per member, and every active member with their own capacity and current load. " +
    'Defaults: off, 10. Caller without a business: 404. See docs/decisions.md#routing-auto-assignment-and-business-hours.',
  tags,
  auth: 'user',
  policy: 'assignment_settings.read',
  response: assignmentSettingsSchema,
  errors: [404],
  handler: async ({ member, deps }) => loadAssignmentSettings(deps.db, member.businessId),
});

export const updateAssignment = defineRoute({
  method: 'patch',
  path: '/api/v1/settings/assignment',
  summary: 'Change auto-assignment (owner or admin)',
  description:
    'Omitted fields keep their value. While on, a new or reopened conversation without an assignee goes round robin (by agent number) to a `live` member whose open + pending ' +
    'assigned conversations are below their capacity (their `max_open`, else `max_open_per_agent`); conversations that found no one wait, and the oldest flow to a member who goes `live` ' +
    'or drops below capacity (a conversation resolved, closed or reassigned). While the AI agent auto-replies, only conversations it handed over wait for a member. ' +
    'Each assignment publishes `conversation_assigned` (with `assigned_by` null) and `conversation_updated`, as a manual one does. Manual assignment is never refused for capacity. ' +
    'A member id not of the business: 404, nothing changed. A conversation with a team (`team_id`) goes only to members of that team. ' +
    '`team_visibility` turns team-scoped visibility on or off (docs/decisions.md#teams-and-team-scoped-visibility); switching it on sends every agent `conversation_hidden` with `conversation_id` null (their apps read again what they show). See docs/decisions.md#routing-auto-assignment-and-business-hours.',
  tags,
  auth: 'user',
  policy: 'assignment_settings.update',
  body: updateAssignmentBody,
  response: assignmentSettingsSchema,
  errors: [403, 404],
  handler: async ({ body, member, deps }) => (await runCommand(deps, (tx) => updateAssignmentSettings(tx, member.businessId, body))).settings,
});

const present = (settings: BusinessHoursSettings) => {
  const status = hoursStatus(settings, new Date());
  return {
    enabled: settings.enabled,
    timezone: settings.timezone,
    week: fullWeek(settings.week),
    holidays: [...settings.holidays],
    out_of_hours_message: settings.out_of_hours_message,
    is_open: status.is_open,
    next_open_at: status.next_open_at,
  };
};

export const readBusinessHours = defineRoute({
  method: 'get',
  path: '/api/v1/settings/business-hours',
  summary: 'Business hours and the out-of-hours message',
  description:
    'The week (local times in `timezone`), holidays, the out-of-hours message, and whether the team is open now. Defaults: off, UTC, no shifts. ' +
    'Caller without a business: 404. See docs/decisions.md#routing-auto-assignment-and-business-hours.',
  tags,
  auth: 'user',
  policy: 'business_hours.read',
  response: businessHoursSchema,
  errors: [404],
  handler: async ({ member, deps }) => present(await loadBusinessHours(deps.db, member.businessId)),
});

export const updateBusinessHoursRoute = defineRoute({
  method: 'patch',
  path: '/api/v1/settings/business-hours',
  summary: 'Change business hours (owner or admin)',
  description:
    'Omitted fields keep their value; `week` and `holidays` replace the stored ones. While on, the first customer message of a conversation that arrives while the team is closed ' +
    'gets `out_of_hours_message` back through its channel as a `system` message (not counted against the monthly limit), once per conversation per closed period. ' +
    'Times are wall-clock times in `timezone`, DST included (a shift starting in a skipped hour starts when the clocks have moved on). ' +
    'Validation errors (unknown time zone, malformed or overlapping shifts, bad dates): 422. See docs/decisions.md#routing-auto-assignment-and-business-hours.',
  tags,
  auth: 'user',
  policy: 'business_hours.update',
  body: updateBusinessHoursBody,
  response: businessHoursSchema,
  errors: [403, 404],
  handler: async ({ body, member, deps }) => {
    const id = member.businessId;
    const changed = await runCommand(deps, (tx) =>
      changingSettings(
        id,
        'business_hours',
        () => loadBusinessHours(tx, id),
        () => updateBusinessHours(tx, id, body),
      ),
    );
    return present(changed.result);
  },
});

export default [readAssignment, updateAssignment, readBusinessHours, updateBusinessHoursRoute, ...securityRoutes];
