/**
 * The agent reply's own statement, alone: Koa with the same body parser, and per request the
 * statement Parley stores a reply with (core/commands/messages.ts trySendMessage, as the reply
 * route calls it), on a pool made by core/adapters/postgres/db.ts as Parley's. No
 * authentication, no live events, no route machinery: what the reply's database work allows
 * on this machine, for planning (bench/rows/agent-reply.ts). `POST /reply {content}` → 200
 * `{id}`, each request to the next of TARGETS (JSON `[{businessId, userId, conversationId}]`)
 * in turn. Listens on PORT; prints "ready".
 */
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { createDb } from '../../core/adapters/postgres/db.ts';
import { trySendMessage } from '../../core/commands/messages.ts';

type Target = { businessId: string; userId: string; conversationId: string };

const db = await createDb(process.env.DATABASE_URL!);
const targets = JSON.parse(process.env.TARGETS!) as Target[];
let next = 0;

const app = new Koa();
app.use(koaBody());
app.use(async (ctx) => {
  const content = String((ctx.request.body as { content?: unknown } | undefined)?.content ?? '');
  const target = targets[next++ % targets.length]!;
  const sent = await trySendMessage(db, {
    businessId: target.businessId,
    conversationId: target.conversationId,
    sender: { type: 'agent', userId: target.userId },
    content,
    attachments: [],
    template: null,
    checkReplyWindow: true,
    recordEvents: true,
    unlessEmail: true,
  });
  if (!('message' in sent)) throw new Error('an e-mail conversation: not what this baseline measures');
  ctx.body = { id: sent.message.id };
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
process.on('SIGTERM', () => server.close(() => db.end().then(() => process.exit(0))));
