/** Parley's mark and name. */
export function Logo({ small }: { small?: boolean }) {
  return (
    <span class={`logo${small ? ' small' : ''}`}>
      <svg viewBox="0 0 32 32" width={small ? 24 : 32} height={small ? 24 : 32} aria-hidden="true">
        <rect width="32" height="32" rx="8" fill="var(--accent)" />
        <path d="M9 10h14v9H15l-4 4v-4H9z" fill="#fff" />
      </svg>
      <span>Parley</span>
    </span>
  );
}
