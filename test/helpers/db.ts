/** A fresh database per test file, cloned from the template that test/run.ts migrated. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type TestDatabase = { url: string; name: string; drop: () => Promise<void> };

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.PARLEY_TEST_ADMIN_URL;
  const template = process.env.PARLEY_TEST_TEMPLATE;
  if (!adminUrl || !template) throw new Error('run the tests with `npm test` (test/run.ts prepares the database)');
  const name = `parley_t_${template}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database "${name}" template "${template}"`);
        break;
      } catch (error) {
        // Another file cloning the same template at the same moment: try again shortly.
        if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}
