/**
 * The text on a business's widget colour (widget/contrast.ts): black or white, whichever reads
 * better, so the header, the bubble's icon, the visitor's own messages and the send button reach
 * WCAG's 4.5:1 on any colour a business picks, mid-tones included.
 */
import test from 'ava';
import { contrastRatio, luminance, textColorOn } from '../widget/contrast.ts';

test('the contrast ratio is WCAG 2: 21 for black on white, 1 for a colour on itself, either order', (t) => {
  t.is(contrastRatio('#000000', '#ffffff'), 21);
  t.is(contrastRatio('#ffffff', '#000'), 21);
  t.is(contrastRatio('#7650FF', '#7650ff'), 1);
  // Published figures: #767676 on white is the lightest grey that passes (4.54), #777777 fails (4.48).
  t.is(Math.round(contrastRatio('#767676', '#ffffff') * 100) / 100, 4.54);
  t.is(Math.round(contrastRatio('#777777', '#ffffff') * 100) / 100, 4.48);
  t.is(luminance('#fff'), 1);
});

test('the text on every widget colour reaches 4.5:1, mid-tones included', (t) => {
  // Brand colours people pick: material blue, orange, teal, Parley's violet, yellow, greys, red.
  const colors = ['#2196F3', '#FF8800', '#0E7C66', '#7650FF', '#FACC15', '#808080', '#767676', '#E53935', '#00BCD4', '#4CAF50', '#000000', '#ffffff'];
  for (const color of colors) {
    const text = textColorOn(color);
    t.true(contrastRatio(text, color) >= 4.5, `${text} on ${color}: ${contrastRatio(text, color).toFixed(2)}:1`);
  }
  // A mid blue that white text fails on (3.1:1) takes black.
  t.is(textColorOn('#2196F3'), '#000000');
  t.is(textColorOn('#0E7C66'), '#ffffff');
  // Every grey from black to white: the worst case is still above 4.5.
  let worst = 21;
  for (let v = 0; v < 256; v++) {
    const grey = `#${v.toString(16).padStart(2, '0').repeat(3)}`;
    worst = Math.min(worst, contrastRatio(textColorOn(grey), grey));
  }
  t.true(worst >= 4.5, `worst ${worst.toFixed(2)}:1`);
});
