/** The AI agent's auto-reply switch (owner or admin; Mini and Pro plans). */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { linkClick } from '../router.ts';
import { can } from '../session.ts';
import { Notice } from '../ui/Notice.tsx';
import { useAction } from '../ui/useAction.ts';
import { useLoad } from '../ui/useLoad.ts';
import { Section } from './Section.tsx';

type AiSettingsBody = { auto_reply_enabled: boolean };

export function AiSettings() {
  const { data, error, setData } = useLoad(() => api.get<AiSettingsBody>('/api/v1/ai/settings'));
  // The switch shows the wanted state at once; a refusal (the plan, the role) puts it back.
  const [wanted, setWanted] = useState<boolean | null>(null);
  const save = useAction(async (on: boolean) => {
    setWanted(on);
    try {
      setData(await api.put<AiSettingsBody>('/api/v1/ai/settings', { auto_reply_enabled: on }));
    } finally {
      setWanted(null);
    }
  });
  const on = wanted ?? data?.auto_reply_enabled ?? false;
  return (
    <Section
      title="AI agent"
      intro={
        <>
          When a customer writes and nobody has taken the conversation, the AI agent answers from your{' '}
          <a href="/app/settings/knowledge" onClick={(e) => linkClick(e, '/app/settings/knowledge')}>
            knowledge base
          </a>
          , or hands the conversation to your team with the reason.
        </>
      }
      error={error}
      loading={!data}
    >
      {data && (
        <div class="card card-row">
          <div class="grow">
            <div class="card-title">Auto-reply</div>
            <div class="small muted">{on ? 'The AI agent answers new customer messages.' : 'Off: every conversation waits for a human.'}</div>
          </div>
          <label class="switch">
            <input
              type="checkbox"
              role="switch"
              aria-label="AI auto-reply"
              checked={on}
              disabled={!can('ai_settings.update')}
              onChange={(e) => void save.run(e.currentTarget.checked)}
            />
            <span aria-hidden="true" />
          </label>
        </div>
      )}
      <Notice>{save.error}</Notice>
    </Section>
  );
}
