/** A paperclip, drawn (emoji fonts are not everywhere). */
export function PaperclipIcon() {
  return (
    <svg viewBox="0 0 24 24" width="15" height="15" aria-hidden="true" class="inline-icon">
      <path
        d="M21 11l-8.5 8.5a5 5 0 0 1-7-7L14 4a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L15 7"
        fill="none"
        stroke="currentColor"
        stroke-width="2"
        stroke-linecap="round"
        stroke-linejoin="round"
      />
    </svg>
  );
}
