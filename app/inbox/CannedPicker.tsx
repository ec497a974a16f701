/**
 * The composer's `/` picker: while the reply starts with `/word`, the canned responses whose
 * short code or text contains `word` (GET /canned-responses?q=); ↑/↓ choose, Enter or Tab (or a
 * click) inserts the chosen one rendered for this conversation (POST …/render), Esc closes.
 * Before that, the chosen one's text as it will be inserted (placeholders filled, fallbacks
 * taken) shows under the list.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, getPage, qs } from '../api.ts';
import type { CannedResponse } from '../types.ts';

/** The word after a leading `/`, while the reply is only that; null otherwise. */
export const slashQuery = (text: string): string | null => text.match(/^\/(\S{0,50})$/)?.[1] ?? null;

export type Picker = {
  open: boolean;
  items: CannedResponse[];
  active: number;
  /** The active item rendered for this conversation (null while it loads). */
  preview: string | null;
  /** Handles the picker's keys; true when it used the key. */
  onKeyDown: (e: KeyboardEvent) => boolean;
  pick: (item: CannedResponse) => void;
  close: () => void;
};

export function useCannedPicker(text: string, conversationId: string, insert: (content: string) => void, onError: (message: string) => void): Picker {
  const query = slashQuery(text);
  const [items, setItems] = useState<CannedResponse[]>([]);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  useEffect(() => {
    if (query === null) return void setItems([]);
    let live = true;
    const timer = setTimeout(() => {
      getPage<CannedResponse>(`/api/v1/canned-responses${qs({ q: query, limit: 8 })}`).then(
        (page) => live && (setItems(page.items), setActive(0)),
        () => live && setItems([]),
      );
    }, 80);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [query]);
  const open = query !== null && dismissed !== text && items.length > 0;
  // The active item rendered for this conversation, each item once per conversation.
  const rendered = useRef(new Map<string, string>());
  const [preview, setPreview] = useState<string | null>(null);
  useEffect(() => rendered.current.clear(), [conversationId]);
  const activeItem = open ? (items[active] ?? null) : null;
  useEffect(() => {
    if (!activeItem) return void setPreview(null);
    const key = `${activeItem.id}:${activeItem.content}`;
    const known = rendered.current.get(key);
    if (known !== undefined) return void setPreview(known);
    setPreview(null);
    let live = true;
    api.post<CannedResponse>(`/api/v1/canned-responses/${activeItem.id}/render`, { conversation_id: conversationId }).then(
      (r) => {
        rendered.current.set(key, r.content);
        if (live) setPreview(r.content);
      },
      () => {},
    );
    return () => {
      live = false;
    };
  }, [activeItem?.id, activeItem?.content, conversationId]);

  const pick = (item: CannedResponse) => {
    api.post<CannedResponse>(`/api/v1/canned-responses/${item.id}/render`, { conversation_id: conversationId }).then(
      (rendered) => insert(rendered.content),
      (e: Error) => onError(e.message),
    );
    setItems([]);
  };
  const onKeyDown = (e: KeyboardEvent): boolean => {
    if (!open) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      setActive((i) => (i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
      return true;
    }
    if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
      pick(items[active] ?? items[0]!);
      return true;
    }
    if (e.key === 'Escape') {
      setDismissed(text);
      return true;
    }
    return false;
  };
  return { open, items, active, preview, onKeyDown, pick, close: () => setDismissed(text) };
}

export function CannedPicker({ picker, id }: { picker: Picker; id: string }) {
  if (!picker.open) return null;
  return (
    <div class="canned-picker">
      <ul class="canned-list" role="listbox" id={id} aria-label="Canned responses">
        {picker.items.map((item, i) => (
          <li
            role="option"
            id={`${id}-${i}`}
            aria-selected={i === picker.active}
            class={i === picker.active ? 'active' : ''}
            // mousedown, not click: the textarea keeps its focus.
            onMouseDown={(e) => (e.preventDefault(), picker.pick(item))}
          >
            <span class="canned-code">/{item.short_code}</span>
            <span class="canned-text" dir="auto">
              {item.content}
            </span>
          </li>
        ))}
      </ul>
      <div class="canned-preview" aria-live="polite">
        <span class="canned-preview-label">Inserts:</span> <span dir="auto">{picker.preview ?? '…'}</span>
      </div>
    </div>
  );
}
