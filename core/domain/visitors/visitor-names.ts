/**
 * The friendly name a website visitor gets until they give theirs ("Amber Otter"), as Intercom
 * and Crisp do: a list of anonymous visitors reads as different people. Distinct within a
 * business: names are chosen with the business's naming lock held (a transaction-scoped advisory
 * lock), so two visitors starting at once cannot take the same one; once every pair is taken a
 * number follows ("Amber Otter 2").
 */
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { sql, type Queryable } from '../../adapters/postgres/db.ts';

const ADJECTIVES = [
  'Amber',
  'Azure',
  'Brave',
  'Bright',
  'Calm',
  'Clever',
  'Coral',
  'Cosy',
  'Crimson',
  'Curious',
  'Daring',
  'Dapper',
  'Eager',
  'Gentle',
  'Golden',
  'Happy',
  'Honey',
  'Indigo',
  'Jolly',
  'Kind',
  'Lively',
  'Lucky',
  'Lunar',
  'Maple',
  'Mellow',
  'Merry',
  'Misty',
  'Nimble',
  'Olive',
  'Peach',
  'Plucky',
  'Quiet',
  'Rosy',
  'Ruby',
  'Rustic',
  'Sage',
  'Silver',
  'Snowy',
  'Sunny',
  'Swift',
  'Teal',
  'Tidy',
  'Velvet',
  'Violet',
  'Warm',
  'Witty',
  'Zesty',
  'Breezy',
];
const ANIMALS = [
  'Badger',
  'Beaver',
  'Bison',
  'Crane',
  'Dolphin',
  'Falcon',
  'Ferret',
  'Finch',
  'Fox',
  'Gazelle',
  'Gecko',
  'Heron',
  'Hedgehog',
  'Ibis',
  'Koala',
  'Lemur',
  'Lynx',
  'Marten',
  'Meerkat',
  'Moose',
  'Narwhal',
  'Ocelot',
  'Otter',
  'Owl',
  'Panda',
  'Pelican',
  'Penguin',
  'Puffin',
  'Quail',
  'Rabbit',
  'Raven',
  'Robin',
  'Salmon',
  'Seal',
  'Sparrow',
  'Squirrel',
  'Stork',
  'Swan',
  'Tapir',
  'Tiger',
  'Toucan',
  'Turtle',
  'Walrus',
  'Whale',
  'Wombat',
  'Wren',
  'Yak',
  'Zebra',
];

/** Random pairs tried per round before the next round adds a number. */
const TRIES = 12;

export type NameLists = { adjectives: readonly string[]; animals: readonly string[] };
const defaultLists: NameLists = { adjectives: ADJECTIVES, animals: ANIMALS };

/**
 * A generated name no customer of the business has. Call inside the transaction that stores it:
 * the lock it takes is held until that transaction ends.
 */
export async function generatedVisitorName(tx: Queryable, businessId: string, lists: NameLists = defaultLists): Promise<string> {
  await tx.query(sql.unsafe`select pg_advisory_xact_lock(hashtextextended('visitor-name:' || ${businessId}, 0))`);
  for (let round = 1; ; round++) {
    const candidates = new Set<string>();
    for (let i = 0; i < TRIES; i++) {
      const pair = `${lists.adjectives[randomInt(lists.adjectives.length)]} ${lists.animals[randomInt(lists.animals.length)]}`;
      candidates.add(round === 1 ? pair : `${pair} ${round}`);
    }
    const taken = await tx.any(sql.type(z.object({ name: z.string() }))`
      select name from customers where business_id = ${businessId} and name = any(${sql.array([...candidates], 'text')})`);
    const takenNames = new Set(taken.map((row) => row.name));
    const free = [...candidates].find((name) => !takenNames.has(name));
    if (free) return free;
  }
}
