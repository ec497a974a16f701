/** lib/one-at-a-time.ts: work given to a turnstile runs one piece at a time, in the order given. */
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { turnstile } from '../lib/one-at-a-time.ts';

test('pieces of work run one at a time, in the order given, each answering for itself', async (t) => {
  const gate = turnstile();
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const piece = (n: number, ms: number) =>
    gate.inTurn(async () => {
      running += 1;
      most = Math.max(most, running);
      await sleep(ms);
      order.push(n);
      running -= 1;
      return n * 10;
    });
  // The first takes longest: without the turnstile the others would finish before it.
  const answers = await Promise.all([piece(1, 30), piece(2, 1), piece(3, 10)]);
  t.deepEqual(answers, [10, 20, 30]);
  t.deepEqual(order, [1, 2, 3]);
  t.is(most, 1);
});

test('a piece that fails rejects for its caller and does not hold up the next', async (t) => {
  const gate = turnstile();
  const failing = gate.inTurn(async () => {
    throw new Error('boom');
  });
  const next = gate.inTurn(async () => 'next ran');
  await t.throwsAsync(failing, { message: 'boom' });
  t.is(await next, 'next ran');
});
