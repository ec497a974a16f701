/** Who is signed in on this device, and signing out (the sidebar's link is hidden on phones). */
import { me, signOut } from '../session.ts';
import { Avatar } from '../ui/Avatar.tsx';
import { Section } from './Section.tsx';

export function Account() {
  const user = me.value?.user;
  if (!user) return null;
  return (
    <Section title="Your account">
      <div class="card card-row">
        <Avatar name={user.full_name} size={44} />
        <div class="grow">
          <div class="card-title">{user.full_name}</div>
          <div class="small muted">
            {user.email} · {user.is_verified ? 'verified' : 'not verified yet'}
            {user.is_google_account ? ' · Google account' : ''} · {me.value?.team_role} of {me.value?.business?.name}
          </div>
        </div>
        <button class="btn" onClick={() => signOut()}>Sign out</button>
      </div>
    </Section>
  );
}
