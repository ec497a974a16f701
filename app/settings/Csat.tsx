/** Customer satisfaction: ask customers to rate their conversation once it is resolved (owner or admin; agents read). */
import { useEffect, useId, useState } from 'preact/hooks';
import { FieldHint } from '../ui/FieldHint.tsx';
import { api } from '../api.ts';
import { can } from '../session.ts';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { useLoad } from '../ui/useLoad.ts';
import { Section } from './Section.tsx';

type CsatSettings = { enabled: boolean; question: string };

export function Csat() {
  const questionHint = useId();
  const { data, error, setData } = useLoad(() => api.get<CsatSettings>('/api/v1/settings/csat'));
  const manage = can('csat_settings.update');
  const [question, setQuestion] = useState('');
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (data) setQuestion(data.question);
  }, [data]);
  const [wanted, setWanted] = useState<boolean | null>(null);
  const toggle = useAction(async (on: boolean) => {
    setWanted(on);
    try {
      setData(await api.patch<CsatSettings>('/api/v1/settings/csat', { enabled: on }));
    } finally {
      setWanted(null);
    }
  });
  const save = useAction(async () => {
    setSaved(false);
    setData(await api.patch<CsatSettings>('/api/v1/settings/csat', { question }));
    setSaved(true);
  });
  const enabled = wanted ?? data?.enabled ?? false;
  return (
    <Section
      title="Customer satisfaction"
      intro="When a conversation is resolved, the customer is asked once to rate it from 1 to 5. On your website the chat widget shows the rating buttons; on other channels customers get a link to a short rating page. Ratings show in the conversation and in analytics."
      error={error}
      loading={!data}
    >
      {data && (
        <>
          <div class="card card-row">
            <div class="grow">
              <div class="card-title">Ask for a rating</div>
              <div class="small muted">{enabled ? 'On: customers are asked when their conversation is resolved.' : 'Off: nobody is asked.'}</div>
            </div>
            <label class="switch">
              <input
                type="checkbox"
                role="switch"
                aria-label="Ask for a rating"
                checked={enabled}
                disabled={!manage}
                onChange={(e) => void toggle.run(e.currentTarget.checked)}
              />
              <span aria-hidden="true" />
            </label>
          </div>
          <Notice>{toggle.error}</Notice>
          <form class="card stack" aria-label="Rating question" onSubmit={save.onSubmit}>
            <label class="field">
              <span class="field-label">Question</span>
              <textarea
                class="input"
                aria-label="Question"
                aria-describedby={questionHint}
                rows={2}
                maxLength={500}
                required
                value={question}
                disabled={!manage}
                onInput={(e) => setQuestion(e.currentTarget.value)}
              />
              <FieldHint id={questionHint}>Sent as the team's message, with 1 (very bad) to 5 (very good) to choose from.</FieldHint>
            </label>
            <div class="csat-preview" aria-label="Preview">
              <span class="muted small">Preview</span>
              <p>{question || '…'}</p>
              <div class="csat-preview-options" aria-hidden="true">
                {[1, 2, 3, 4, 5].map((n) => (
                  <span>{n}</span>
                ))}
              </div>
            </div>
            <Notice>{save.error}</Notice>
            {manage && (
              <div class="row-end">
                {saved && !save.busy && (
                  <span class="small muted saved-note" role="status">
                    Saved
                  </span>
                )}
                <button class="btn primary" type="submit" disabled={save.busy || !question.trim()}>
                  Save
                </button>
              </div>
            )}
          </form>
          {!manage && <p class="muted small">The owner and admins change these settings.</p>}
        </>
      )}
    </Section>
  );
}
