/** Knowledge base articles the AI agent answers from: index status, add, delete, try a search. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, getPage, qs } from '../api.ts';
import type { Article, SearchHit } from '../types.ts';
import { Field } from '../ui/Field.tsx';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { useLoad } from '../ui/useLoad.ts';
import { Section } from './Section.tsx';

const INDEX = { pending: 'Indexing…', indexed: 'Indexed', failed: 'Indexing failed' } as const;

const PAGE = 50;

/** The newest `count` articles (page by page), and whether older ones exist. */
async function loadArticles(count: number): Promise<{ articles: Article[]; more: boolean }> {
  const articles: Article[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: Article[]; next: string | null } = await getPage<Article>(
      `/api/v1/kb/articles${qs({ limit: Math.min(200, Math.max(PAGE, count - articles.length)), cursor })}`,
    );
    articles.push(...page.items);
    cursor = page.next;
  } while (cursor && articles.length < count);
  return { articles, more: cursor !== null };
}

function NewArticle({ onSaved }: { onSaved: () => void }) {
  const [title, setTitle] = useState('');
  const [content, setContent] = useState('');
  const [tags, setTags] = useState('');
  const act = useAction(
    async () => {
      await api.post('/api/v1/kb/articles', {
        title,
        content,
        tags: tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
      });
      setTitle('');
      setContent('');
      setTags('');
      onSaved();
    },
    { fields: ['title', 'tags'] },
  );
  return (
    <form class="card stack" onSubmit={act.onSubmit} aria-label="New article">
      <Field label="Title" error={act.fieldErrors.title} required maxLength={200} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      <label class="field">
        <span class="field-label">Content</span>
        <textarea class="input" rows={6} required value={content} onInput={(e) => setContent(e.currentTarget.value)} />
      </label>
      <Field
        label="Tags"
        error={act.fieldErrors.tags}
        placeholder="shipping, returns (optional)"
        value={tags}
        onInput={(e) => setTags(e.currentTarget.value)}
      />
      <Notice>{act.error}</Notice>
      <div class="row-end">
        <button class="btn primary" type="submit" disabled={act.busy}>
          Add article
        </button>
      </div>
    </form>
  );
}

function Search() {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const act = useAction(async () => setHits(await api.get<SearchHit[]>(`/api/v1/kb/search${qs({ q, limit: 5 })}`)));
  return (
    <form class="stack" role="search" onSubmit={act.onSubmit}>
      <div class="row">
        <input
          class="input grow"
          type="search"
          aria-label="Search the knowledge base"
          placeholder="Ask what a customer would ask…"
          value={q}
          onInput={(e) => setQ(e.currentTarget.value)}
        />
        <button class="btn" type="submit" disabled={act.busy || !q.trim()}>
          Search
        </button>
      </div>
      <Notice>{act.error}</Notice>
      {hits &&
        (hits.length ? (
          <ul class="cards search-hits" aria-label="Best matches">
            {hits.map((h) => (
              <li class="card">
                <div class="card-title">
                  {h.title} <span class="muted small">{Math.round(h.score * 100)}% match</span>
                </div>
                <p class="small muted">{h.snippet}</p>
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted small">No article matches.</p>
        ))}
    </form>
  );
}

export function Knowledge() {
  // A re-read (after a change, or while indexing) keeps as many articles as are shown: "Show more" is never undone.
  const shown = useRef(PAGE);
  const { data: loaded, error, reload } = useLoad(() => loadArticles(shown.current));
  const data = loaded?.articles ?? null;
  const more = useAction(async () => {
    shown.current = (data?.length ?? 0) + PAGE;
    await reload();
  });
  // Indexing runs in the background and sends no event: look again while some article waits.
  const indexing = (data ?? []).some((a) => a.index_status === 'pending');
  useEffect(() => {
    if (!indexing) return;
    const timer = setInterval(() => void reload(), 2000);
    return () => clearInterval(timer);
  }, [indexing, reload]);
  const remove = useAction(async (id: number) => {
    await api.delete(`/api/v1/kb/articles/${id}`);
    await reload();
  });
  return (
    <Section
      title="Knowledge base"
      intro="Articles the AI agent answers from. Write them as you would explain things to a new teammate."
      error={error}
      loading={!data}
    >
      <Search />
      <h3 class="subhead">Articles</h3>
      <ul class="cards" aria-label="Articles">
        {(data ?? []).map((a) => (
          <li class="card card-row" aria-label={a.title}>
            <div class="grow">
              <div class="card-title">{a.title}</div>
              <div class="small muted">
                {a.tags.join(', ') || 'No tags'} · <span class={`index-${a.index_status}`}>{INDEX[a.index_status]}</span>
              </div>
            </div>
            <button
              class="btn small danger"
              disabled={remove.busy}
              onClick={() => confirm(`Delete "${a.title}"?`) && remove.run(a.id)}
              aria-label={`Delete ${a.title}`}
            >
              Delete
            </button>
          </li>
        ))}
      </ul>
      {loaded?.more && (
        <div>
          <button class="btn" type="button" disabled={more.busy} onClick={() => more.run()}>
            {more.busy ? 'Loading…' : 'Show more'}
          </button>
        </div>
      )}
      {data?.length === 0 && <p class="muted">No articles yet. Add your shipping, returns and pricing answers first: they are what customers ask most.</p>}
      <Notice>{remove.error}</Notice>
      <h3 class="subhead">Add an article</h3>
      <NewArticle onSaved={() => void reload()} />
    </Section>
  );
}
