import { useEffect } from 'preact/hooks';
import { navigate } from '../router.ts';
import { Loading } from './Loading.tsx';

/** Replaces the location after render (never during it). */
export function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return <Loading />;
}
