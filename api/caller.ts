/** Who is calling: the signed-in user (or the API key acting for a member) and their membership. */

export type Role = 'owner' | 'admin' | 'agent';

/** What an API key may do (api/policies.ts maps every action onto one). */
export type Scope = 'read' | 'write' | 'admin';

export type Caller = {
  userId: string;
  email: string;
  fullName: string;
  /** The token's id and expiry (unix seconds), for logout. */
  jti: string;
  exp: number;
  /** The caller's active membership, or null when they belong to no business. */
  member: {
    id: string;
    businessId: string;
    role: Role;
    agentNumber: number;
    /** The member's user id (the caller's). */
    userId: string;
    /**
     * The business turned team-scoped visibility on and the member is an `agent`: they see only
     * the conversations of their teams and those assigned to them (core/domain/team-visibility.ts).
     */
    teamScoped: boolean;
  } | null;
  /** Set when the bearer is an API key: the key, acting as `member` within its scopes. */
  apiKey?: { id: string; name: string; scopes: Scope[] };
  /**
   * The caller's business requires two-factor sign-in and they have not turned it on: the
   * business's routes refuse them (403) until they do (docs/decisions.md#two-factor-sign-in).
   */
  twoFactorSetupRequired?: boolean;
};
