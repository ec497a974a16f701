/** The business's teams (every page of GET /teams), for the inbox filter, the conversation's team picker and settings. */
import { signal } from '@preact/signals';
import { getPage, qs } from '../api.ts';
import { onLive } from '../live.ts';
import type { Team } from '../types.ts';

export const teams = signal<Team[]>([]);

let reads = 0;

export async function loadTeams(): Promise<void> {
  const mine = ++reads;
  const all: Team[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: Team[]; next: string | null } = await getPage<Team>(`/api/v1/teams${qs({ limit: 200, cursor })}`);
    all.push(...page.items);
    cursor = page.next;
  } while (cursor);
  if (mine === reads) teams.value = all;
}

// Another member changed the teams (settings_changed): read them again, so the filter and the team picker follow without a reload.
onLive((event) => {
  if (event.name === 'settings_changed' && (event.payload as { setting?: string }).setting === 'teams') void loadTeams().catch(() => {});
});

export const teamNamed = (id: string | null): Team | undefined => (id ? teams.value.find((t) => t.id === id) : undefined);
