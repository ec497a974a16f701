/**
 * WCAG 2 contrast, for the text drawn on a business's widget colour: black or white, whichever
 * contrasts more with it. One of the two always reaches 4.58:1 whatever the colour (WCAG 1.4.3
 * asks 4.5:1; a softer near-black would fall to 4.2:1 on some mid-tones). Also used by the app's preview of the widget (app/settings/WidgetPreview.tsx),
 * so it shows the text as visitors will see it.
 */

/** The relative luminance of a `#rgb` or `#rrggbb` colour, 0 (black) to 1 (white). */
export function luminance(hex: string): number {
  let h = hex.replace('#', '');
  if (h.length === 3) h = h.replace(/./g, (c) => c + c);
  const channel = (i: number) => {
    const v = parseInt(h.slice(i, i + 2), 16) / 255;
    return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

/** The contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** The text colour for a background of `hex`: whichever of black and white reads better on it. */
export function textColorOn(hex: string): '#000000' | '#ffffff' {
  return contrastRatio('#000000', hex) >= contrastRatio('#ffffff', hex) ? '#000000' : '#ffffff';
}
