/**
 * Names people read (a person's, a business's) must read as what they are: no control
 * characters (C0, DEL, C1) and no bidirectional overrides or isolates, which make a name
 * display as other text (a link in an e-mail, another person's name in a list). Letters of
 * every script, emoji and joiners are fine.
 */
export const HIDDEN_OR_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** The name with those characters removed (names that come from elsewhere, e.g. Google). */
export function withoutHiddenCharacters(name: string): string {
  return name.replace(new RegExp(HIDDEN_OR_CONTROL.source, 'g'), '');
}
