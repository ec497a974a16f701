/**
 * index_article: embeds one knowledge base article into the search index and marks it
 * `indexed`. Safe to run twice (its chunks are replaced in one transaction). A permanent Ollama
 * failure (a model that is not pulled, a refused request) marks the article `failed` at once;
 * a transient one (unreachable, 5xx) throws so graphile-worker retries, and the last attempt
 * marks it `failed` too. A failed article stays saved; recreating it indexes it again.
 */
import { indexArticle, markIndexFailed } from '../../core/domain/knowledge-base/search-index.ts';
import { OllamaError } from '../../core/adapters/ollama.ts';
import { catalogueTask } from '../task.ts';

export default catalogueTask({
  name: 'index_article',
  run: async ({ article_id }, deps, helpers) => {
    let result;
    try {
      result = await indexArticle(deps.db, deps.config, article_id);
    } catch (error) {
      // Only Ollama's failures belong to the article; a database error is retried as it is.
      if (!(error instanceof OllamaError)) throw error;
      const failure = error;
      const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
      if (failure.kind === 'permanent' || lastAttempt) {
        await markIndexFailed(deps.db, article_id, failure.message);
        deps.logger.warn({ article_id, error: failure.message, attempts: helpers.job.attempts }, 'knowledge base article could not be indexed');
        if (failure.kind === 'permanent') return;
      }
      throw failure;
    }
    if (result.status === 'indexed') deps.logger.debug({ article_id, chunks: result.chunks }, 'knowledge base article indexed');
  },
});
