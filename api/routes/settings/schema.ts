import { z } from '../../../lib/zod.ts';
import { isTimeZone, minutesOf, weekProblem, type Week } from '../../../core/domain/business-hours.ts';

// ---- Assignment

const capacity = z.number().int().min(1).max(1000);

export const assignmentAgentSchema = z
  .object({
    member_id: z.uuid(),
    user_id: z.uuid(),
    full_name: z.string(),
    role: z.enum(['owner', 'admin', 'agent']),
    status: z.enum(['live', 'away', 'offline']).openapi({ description: 'Only `live` members get conversations automatically' }),
    max_open: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "This member's own capacity; null: the business's `max_open_per_agent`; 0: never assigned automatically" }),
    open_conversations: z.number().int().openapi({ description: 'Their `open` and `pending` assigned conversations (what capacity counts)' }),
  })
  .openapi('AssignmentAgent');

export const assignmentSettingsSchema = z
  .object({
    enabled: z.boolean().openapi({ description: 'New and reopened unassigned conversations go round robin to `live` members under capacity' }),
    max_open_per_agent: z.number().int().openapi({ description: 'Capacity: open + pending conversations assigned to one member, 1–1000 (default 10)' }),
    agents: z.array(assignmentAgentSchema).openapi({ description: 'Every active member, in agent-number order' }),
    team_visibility: z.boolean().openapi({
      description:
        'Team-scoped visibility (default false): members with the role `agent` see only the conversations of their teams (GET /api/v1/teams) and those assigned to them, in every list, read, search, live event and export; the owner and admins see all. See docs/decisions.md#teams-and-team-scoped-visibility',
    }),
  })
  .openapi('AssignmentSettings');

export const updateAssignmentBody = z.object({
  enabled: z.boolean().optional(),
  team_visibility: z
    .boolean()
    .optional()
    .openapi({ description: 'Turns team-scoped visibility on or off (takes effect on the next request and the next live event)' }),
  max_open_per_agent: capacity.optional().openapi({ description: '1–1000' }),
  agents: z
    .array(z.object({ member_id: z.uuid(), max_open: z.number().int().min(0).max(1000).nullable() }))
    .max(500)
    .refine((list) => new Set(list.map((a) => a.member_id)).size === list.length, { message: 'Each member may appear once' })
    .optional()
    .openapi({
      description:
        "Per-member capacity overrides to set: `max_open` 0–1000, or null for the business's capacity. Members left out keep theirs. A member not of the business: 404.",
    }),
});

// ---- Business hours

const time = z
  .string()
  .regex(/^\d{2}:\d{2}$/, 'must be a time HH:MM')
  .refine((v) => minutesOf(v) !== null, 'must be a time from 00:00 to 24:00')
  .openapi({ example: '09:00' });
const shift = z.object({ open: time, close: time.openapi({ example: '17:00', description: 'Local time; `24:00` is midnight at the end of the day' }) });
const day = z.array(shift).max(6);

export const weekSchema = z
  .object({ mon: day.optional(), tue: day.optional(), wed: day.optional(), thu: day.optional(), fri: day.optional(), sat: day.optional(), sun: day.optional() })
  .strict()
  .superRefine((week, ctx) => {
    const problem = weekProblem(week as Week);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .openapi({
    description:
      'Replaces the whole week. Shifts per weekday (local times); a day left out or `[]` is closed. A shift past midnight is two shifts (Mon 22:00–24:00, Tue 00:00–02:00).',
  });

const holiday = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), 'must be a real date')
  .openapi({ example: '2026-12-25' });

export const businessHoursSchema = z
  .object({
    enabled: z.boolean(),
    timezone: z.string().openapi({ example: 'Europe/Berlin', description: 'IANA time zone name' }),
    week: z.object({
      mon: z.array(shift),
      tue: z.array(shift),
      wed: z.array(shift),
      thu: z.array(shift),
      fri: z.array(shift),
      sat: z.array(shift),
      sun: z.array(shift),
    }),
    holidays: z.array(z.string()).openapi({ description: 'Local dates, closed all day, ascending' }),
    out_of_hours_message: z.string(),
    is_open: z.boolean().openapi({ description: 'Open now (always true while `enabled` is false)' }),
    next_open_at: z.string().nullable().openapi({ description: 'When closed: the next opening (ISO 8601 UTC), null when none within 60 days' }),
  })
  .openapi('BusinessHours');

export const updateBusinessHoursBody = z.object({
  enabled: z.boolean().optional(),
  timezone: z.string().max(64).refine(isTimeZone, 'must be an IANA time zone name such as Europe/Berlin').optional(),
  week: weekSchema.optional(),
  holidays: z.array(holiday).max(366).optional().openapi({ description: 'Replaces the list; up to 366 dates' }),
  out_of_hours_message: z.string().trim().min(1).max(2000).optional(),
});
