/** Response bodies shared by routes of several groups, named once in the OpenAPI document. */
import { z } from '../lib/zod.ts';

/**
 * `{message}`: a human-readable confirmation (logout, verification mail sent, member removed…).
 * Named `MessageReply`: `Message` is the message resource (core/presenters/message.ts).
 */
export const messageReply = z.object({ message: z.string() }).openapi('MessageReply', { description: 'A human-readable confirmation of what was done' });
