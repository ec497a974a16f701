/** Settings sections; owners and admins change what the API lets them, agents read. */
import { useEffect, useRef } from 'preact/hooks';
import { currentLocation, linkClick } from '../router.ts';
import { Channels } from './Channels.tsx';
import { WidgetSettings } from './WidgetSettings.tsx';
import { Knowledge } from './Knowledge.tsx';
import { Labels } from './Labels.tsx';
import { CannedResponses } from './CannedResponses.tsx';
import { Team } from './Team.tsx';
import { Teams } from './Teams.tsx';
import { Plan } from './Plan.tsx';
import { AiSettings } from './AiSettings.tsx';
import { Account } from './Account.tsx';
import { ApiKeys } from './ApiKeys.tsx';
import { Webhooks } from './Webhooks.tsx';
import { AuditLog } from './AuditLog.tsx';
import { can } from '../session.ts';
import type { Action } from '../types.ts';
import { Assignment } from './Assignment.tsx';
import { BusinessHours } from './BusinessHours.tsx';
import { Security } from './Security.tsx';
import { SlaPolicies } from './SlaPolicies.tsx';
import { Csat } from './Csat.tsx';
import { Retention } from './Retention.tsx';
import { CustomerAttributes } from './CustomerAttributes.tsx';
import { usePageTitle } from '../shell/title.ts';

const SECTIONS: { id: string; label: string; page: () => preact.JSX.Element | null; needs?: Action }[] = [
  { id: 'channels', label: 'Channels', page: Channels },
  { id: 'widget', label: 'Website widget', page: WidgetSettings },
  { id: 'knowledge', label: 'Knowledge base', page: Knowledge },
  { id: 'labels', label: 'Labels', page: Labels },
  { id: 'customer-attributes', label: 'Customer attributes', page: CustomerAttributes },
  { id: 'canned-responses', label: 'Canned responses', page: CannedResponses },
  { id: 'team', label: 'Team', page: Team },
  { id: 'teams', label: 'Teams', page: Teams },
  { id: 'assignment', label: 'Assignment', page: Assignment },
  { id: 'business-hours', label: 'Business hours', page: BusinessHours },
  { id: 'sla', label: 'SLA policies', page: SlaPolicies },
  { id: 'csat', label: 'Satisfaction', page: Csat },
  { id: 'plan', label: 'Plan & billing', page: Plan },
  { id: 'ai', label: 'AI agent', page: AiSettings },
  { id: 'api-keys', label: 'API keys', page: ApiKeys, needs: 'api_keys.manage' },
  { id: 'webhooks', label: 'Webhooks', page: Webhooks, needs: 'webhooks.manage' },
  { id: 'audit-log', label: 'Audit log', page: AuditLog, needs: 'audit_log.read' },
  { id: 'security', label: 'Security', page: Security, needs: 'security_settings.update' },
  { id: 'retention', label: 'Data retention', page: Retention, needs: 'retention.read' },
  { id: 'account', label: 'Your account', page: Account },
];

export function Settings() {
  const id = currentLocation.value.path.split('/')[3] ?? 'channels';
  // Owners and admins only: the others do not see these sections at all.
  const sections = SECTIONS.filter((s) => !s.needs || can(s.needs));
  const section = sections.find((s) => s.id === id) ?? sections[0]!;
  const Page = section.page;
  usePageTitle(`${section.label} · Settings`);
  // On a phone the sections are one scrolling row: keep the open one in sight.
  const active = useRef<HTMLAnchorElement>(null);
  useEffect(() => active.current?.scrollIntoView({ block: 'nearest', inline: 'nearest' }), [section.id]);
  return (
    <div class="settings">
      <nav class="settings-nav" aria-label="Settings">
        <h1 class="settings-title">Settings</h1>
        <ul>
          {sections.map((s) => {
            const to = `/app/settings/${s.id}`;
            return (
              <li>
                <a
                  href={to}
                  ref={s.id === section.id ? active : undefined}
                  class={s.id === section.id ? 'active' : ''}
                  aria-current={s.id === section.id ? 'page' : undefined}
                  onClick={(e) => linkClick(e, to)}
                >
                  {s.label}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls; focusable, the keyboard can scroll a page with nothing else to focus (an agent's read-only ones). */}
      <div class="settings-body" tabIndex={0}>
        <Page />
      </div>
    </div>
  );
}
