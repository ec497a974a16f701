/** Who is signed in: the profile (GET /auth/me) and the caller's team membership. */
import { signal } from '@preact/signals';
import { api, setUnauthorizedHandler } from './api.ts';
import { loadChannelTypes } from './channel-types.ts';
import { navigate } from './router.ts';
import { storeToken, token } from './session-token.ts';
import { forgetDrafts } from './inbox/drafts.ts';
import type { Action, Me, Member } from './types.ts';

export const me = signal<Me | null>(null);
/** The caller's own membership (availability, agent number); null without a workspace. */
export const myMember = signal<Member | null>(null);
export const members = signal<Member[]>([]);

/** Whether the signed-in user may do `action` now, as the server's policy table says (GET /auth/me `can`). */
export const can = (action: Action): boolean => me.value?.can[action] === true;

let loads = 0;

/** Reads the profile; when reads overlap, the last one started wins (an earlier answer may be stale). */
export async function loadMe(): Promise<Me> {
  const mine = ++loads;
  const profile = await api.get<Me>('/api/v1/auth/me');
  if (mine !== loads) return profile;
  me.value = profile;
  // Names and icons of channel types: a failure leaves bare type names, never a broken app.
  // A member who must set up two-factor first may not read the team yet (403): the app shows only the setup.
  if (profile.business && !profile.two_factor.setup_required) await Promise.all([loadMembers(), loadChannelTypes().catch(() => {})]);
  return profile;
}

let memberLoads = 0;

/** Reads the team (availability included); when reads overlap, the last one started wins. */
export async function loadMembers(): Promise<void> {
  const mine = ++memberLoads;
  const list = await api.get<Member[]>('/api/v1/team/members');
  if (mine !== memberLoads) return;
  members.value = list;
  myMember.value = list.find((m) => m.user_id === me.value?.user.id) ?? null;
}

/** Keeps a token from register, login or Google sign-in and goes where the user belongs. */
export async function signedIn(accessToken: string, next = '/app/inbox'): Promise<void> {
  storeToken(accessToken);
  const profile = await loadMe();
  navigate(profile.business ? next : '/app/onboarding', { replace: true });
}

function forget(): void {
  storeToken(null);
  me.value = null;
  myMember.value = null;
  members.value = [];
}

/** Ends every session of the account (every device), this one included: with the password or a second factor (`proof`). */
export async function signOutEverywhere(proof: object): Promise<void> {
  await api.post('/api/v1/auth/logout-all', proof);
  forgetDrafts();
  forget();
  navigate('/app/signin', { replace: true });
}

/** Leaves the business (not its owner): the account stays signed in, with no workspace, and may create its own. */
export async function leaveTeam(): Promise<void> {
  await api.post('/api/v1/team/leave');
  myMember.value = null;
  members.value = [];
  await loadMe();
  navigate('/app/onboarding', { replace: true });
}

/** Signs this browser out; the drafts kept in it go too (an expired session keeps them). */
export async function signOut(): Promise<void> {
  await api.post('/api/v1/auth/logout').catch(() => {});
  forgetDrafts();
  forget();
  navigate('/app/signin', { replace: true });
}

setUnauthorizedHandler(() => {
  if (!token.value) return;
  forget();
  const here = location.pathname + location.search;
  navigate(`/app/signin${here.startsWith('/app/inbox') ? `?next=${encodeURIComponent(here)}` : ''}`, { replace: true });
});

// Another tab signed in as someone else (or out): this tab's profile is stale.
addEventListener('storage', (event) => {
  if (event.key === 'parley.token') me.value = null;
});
