/** Every worker task. A new task adds one line here. */
import type { AnyTask } from '../task.ts';
import sendEmail from './send_email.ts';

export const allTasks: AnyTask[] = [sendEmail];
