/** Initials on a colour picked from the name, so people are told apart at a glance. */
const HUES = [262, 200, 160, 25, 340, 45, 290, 120];

export function Avatar({ name, size = 36 }: { name: string; size?: number }) {
  const initials =
    name
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((w) => w[0]!.toUpperCase())
      .join('') || '?';
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const hue = HUES[hash % HUES.length];
  return (
    <span
      class="avatar"
      aria-hidden="true"
      style={{
        width: `${size}px`,
        height: `${size}px`,
        fontSize: `${Math.round(size * 0.4)}px`,
        background: `hsl(${hue} 70% 92%)`,
        // 4.5:1 or more against the background for every hue (WCAG 1.4.3).
        color: `hsl(${hue} 55% 30%)`,
      }}
    >
      {initials}
    </span>
  );
}
