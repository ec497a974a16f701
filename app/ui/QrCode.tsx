/**
 * A QR code drawn as SVG in the page (uqr: a small, dependency-free encoder; we draw its module
 * matrix ourselves, so no markup from elsewhere is inserted). Used for the otpauth:// URI of
 * two-factor setup: the secret never leaves the browser for an image service.
 */
import { encode } from 'uqr';

export function QrCode({ value, label, size = 184 }: { value: string; label: string; size?: number }) {
  const { data, size: modules } = encode(value, { ecc: 'M', border: 2 });
  let path = '';
  data.forEach((row, y) => row.forEach((dark, x) => dark && (path += `M${x} ${y}h1v1h-1z`)));
  return (
    <svg class="qr" role="img" aria-label={label} width={size} height={size} viewBox={`0 0 ${modules} ${modules}`} shape-rendering="crispEdges">
      <rect width={modules} height={modules} fill="#fff" />
      <path d={path} fill="#101828" />
    </svg>
  );
}
