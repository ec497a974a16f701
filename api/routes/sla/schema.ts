import { z } from '../../../lib/zod.ts';
import { intParam } from '../../validation.ts';
import { labelName, nameCursorParam } from '../labels/schema.ts';

const minutes = z.number().int().min(1).max(525_600).nullable();

export const slaPolicySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    first_response_minutes: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Minutes from the conversation's start to the first agent reply; null: no such target" }),
    next_response_minutes: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Minutes from a customer message after an agent reply to the next agent reply; null: no such target' }),
    resolution_minutes: z.number().int().nullable().openapi({ description: "Minutes from the conversation's start to its resolution; null: no such target" }),
    business_hours_only: z
      .boolean()
      .openapi({ description: 'Count only the minutes the team is open (GET /api/v1/settings/business-hours), while business hours are on' }),
    channel_ids: z.array(z.uuid()).openapi({ description: 'Applies to conversations of these channels' }),
    labels: z.array(z.string()).openapi({
      description: 'Applies to conversations carrying one of these labels (takes precedence over channels). No channels and no labels: every conversation',
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('SlaPolicy');

const fields = {
  name: z.string().trim().min(1).max(100).openapi({ description: '1–100 characters, unique in the business whatever its case' }),
  first_response_minutes: minutes.openapi({ description: '1–525600, or null' }),
  next_response_minutes: minutes.openapi({ description: '1–525600, or null' }),
  resolution_minutes: minutes.openapi({ description: '1–525600, or null' }),
  business_hours_only: z.boolean(),
  channel_ids: z.array(z.uuid()).max(100).openapi({ description: 'Channels of the business (400 otherwise)' }),
  labels: z.array(labelName).max(50).openapi({ description: 'Label names of the business, case-insensitive (400 naming one it lacks)' }),
};

export const createSlaPolicyBody = z.object({
  name: fields.name,
  first_response_minutes: fields.first_response_minutes.default(null),
  next_response_minutes: fields.next_response_minutes.default(null),
  resolution_minutes: fields.resolution_minutes.default(null),
  business_hours_only: fields.business_hours_only.default(false),
  channel_ids: fields.channel_ids.default([]),
  labels: fields.labels.default([]),
});

export const updateSlaPolicyBody = z.object({
  name: fields.name.optional(),
  first_response_minutes: fields.first_response_minutes.optional(),
  next_response_minutes: fields.next_response_minutes.optional(),
  resolution_minutes: fields.resolution_minutes.optional(),
  business_hours_only: fields.business_hours_only.optional(),
  channel_ids: fields.channel_ids.optional(),
  labels: fields.labels.optional(),
});

export const slaPolicyParams = z.object({ policy_id: z.uuid() });

export const listSlaPoliciesQuery = z.object({
  limit: intParam({ min: 1, max: 200 }).default(100).openapi({ default: 100 }),
  cursor: nameCursorParam.optional(),
});
