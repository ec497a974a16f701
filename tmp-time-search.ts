import { createDb } from './core/adapters/postgres/db.ts';
import { searchMessages, searchConversations, searchCustomers } from './core/domain/search/history-search.ts';
const db = await createDb(process.env.DATABASE_URL!);
const businessId = process.argv[2]!;
const cases: [string, string][] = [['messages','w0'],['messages','w100'],['messages','w1999'],['messages','needle'],['messages','w3 w40'],['messages','"w0 w1"'],['conversations','w100'],['conversations','needle'],['customers','kowalcz'],['customers','person4242@'],['customers','555 004']];
for (let round = 0; round < 2; round++) for (const [type, text] of cases) {
  const t = performance.now();
  const f = type === 'messages' ? searchMessages : type === 'customers' ? searchCustomers : searchConversations;
  const page = await f(db, { businessId, text, after: null, limit: 20 });
  if (round) console.log(type.padEnd(14), text.padEnd(12), (performance.now() - t).toFixed(1).padStart(8), 'ms', page.results.length);
}
await db.end();
