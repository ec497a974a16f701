/** A full-page wait, or the reason the app could not start with a way to retry. */
export function Loading({ error }: { error?: string }) {
  if (error)
    return (
      <div class="center-page" role="alert">
        <p>{error}</p>
        <button class="btn" onClick={() => location.reload()}>
          Try again
        </button>
      </div>
    );
  return (
    <div class="center-page" aria-busy="true">
      <div class="spinner" aria-label="Loading" role="status" />
    </div>
  );
}
