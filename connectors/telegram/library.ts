/** telegraf, loaded when a Telegram channel is first used (see core/adapters/lazy-module.ts). */
import { lazyModule } from '../../core/adapters/lazy-module.ts';

export const telegraf = lazyModule(() => import('telegraf'));
