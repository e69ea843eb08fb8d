/** The generator's people: users of the organization and the personal workspace, teams and their memberships. */
import type { Gid, Team } from './model';
import { FIRST_NAMES, LAST_NAMES, TEAM_NAMES, personName } from './names';
import { DAY, GENERATION_START, type GenerationState } from './generator-state';

export function users(g: GenerationState): void {
  const n = g.shape.users;
  const guests = Math.max(2, Math.round(n * g.shape.guestRatio));
  const inactive = Math.max(2, Math.round(n * g.shape.inactiveRatio));
  for (let i = 0; i < n; i++) {
    // Scripted: the first users are plain active members; the last `guests` are guests; one guest is inactive.
    const isGuest = i >= n - guests;
    const isActive = !(i >= 3 && i < 3 + inactive - 1) && i !== n - 1;
    const { first, last } =
      i < FIRST_NAMES.length * 2
        ? { first: FIRST_NAMES[i % FIRST_NAMES.length] as string, last: LAST_NAMES[(i * 7) % LAST_NAMES.length] as string }
        : personName(g.rng);
    const user = g.store.people.addUser({ name: `${first} ${last}`, email: g.email(first, last, isGuest ? 'partner-agency.example' : 'northwind.example') });
    g.store.people.addWorkspaceMembership({
      user: user.gid,
      workspace: g.org,
      isActive,
      isGuest,
      isAdmin: i === 0,
      createdAt: g.time(GENERATION_START - 400 * DAY, GENERATION_START),
    });
    g.orgUsers.push(user);
    if (isGuest) g.guests.push(user.gid);
    else if (isActive) g.activeMembers.push(user.gid);
    if (!isActive) g.inactive.push(user.gid);
  }
  if (g.personal) {
    // A few organization members also use a personal workspace, plus one outside friend.
    for (const u of g.activeMembers.slice(0, Math.min(6, g.activeMembers.length))) {
      g.store.people.addWorkspaceMembership({ user: u, workspace: g.personal, isActive: true, createdAt: GENERATION_START });
      g.personalUsers.push(u);
    }
    const friend = g.store.people.addUser({ name: 'Robin Outsider', email: g.email('Robin', 'Outsider', 'mail.example') });
    g.store.people.addWorkspaceMembership({ user: friend.gid, workspace: g.personal, isActive: true, createdAt: GENERATION_START });
    g.personalUsers.push(friend.gid);
    const gone = g.store.people.addUser({ name: 'Sam Former', email: g.email('Sam', 'Former', 'mail.example') });
    g.store.people.addWorkspaceMembership({ user: gone.gid, workspace: g.personal, isActive: false, createdAt: GENERATION_START });
    g.personalUsers.push(gone.gid);
  }
}

export function teamsAndMemberships(g: GenerationState): void {
  const s = g.store;
  for (let i = 0; i < g.shape.teams; i++) {
    const base = TEAM_NAMES[i % TEAM_NAMES.length] as string;
    const name = i < TEAM_NAMES.length ? base : `${base} ${Math.floor(i / TEAM_NAMES.length) + 1}`;
    const visibility =
      i === 0 ? 'public' : i === 1 ? 'secret' : i === 2 ? 'request_to_join' : g.rng.chance(0.15) ? 'secret' : g.rng.chance(0.2) ? 'request_to_join' : 'public';
    const team = s.people.addTeam({ workspace: g.org, name, visibility, description: `The ${name} team.` });
    g.teams.push(team);
    g.teamMembers.set(team.gid, []);
  }
  const join = (team: Team, user: Gid, opts: { isGuest?: boolean; isLimitedAccess?: boolean; isAdmin?: boolean } = {}): void => {
    const before = s.indexes.teamMembershipsByTeam.get(team.gid)?.length ?? 0;
    s.people.addTeamMembership({ team: team.gid, user, ...opts });
    if ((s.indexes.teamMembershipsByTeam.get(team.gid)?.length ?? 0) > before && !opts.isLimitedAccess) g.teamMembers.get(team.gid)?.push(user);
  };
  // Every non-guest user (inactive ones included: deactivation keeps memberships) joins 1–3 teams.
  const members = g.orgUsers.filter((u) => !g.guests.includes(u.gid));
  members.forEach((u, i) => {
    const count = g.rng.int(1, 3);
    const first = g.teams[i % g.teams.length] as Team;
    join(first, u.gid, { isAdmin: i < g.teams.length });
    for (const t of g.rng.sample(g.teams, count - 1)) join(t, u.gid, { isLimitedAccess: g.rng.chance(g.shape.limitedAccessRatio) });
  });
  // Scripted: a limited-access member of team 0 who belongs to no other way into its projects.
  const team0 = g.teams[0] as Team;
  const inTeam0 = new Set(s.indexes.list(s.indexes.teamMembershipsByTeam.get(team0.gid), s.indexes.teamMemberships).map((m) => m.user));
  const lam = [...members].reverse().find((u) => !inTeam0.has(u.gid));
  if (lam) s.people.addTeamMembership({ team: team0.gid, user: lam.gid, isLimitedAccess: true });
  // Guests: half of them (the first always) are added to one team.
  g.guests.forEach((guest, i) => {
    if (i === 0 || g.rng.chance(0.5)) join(g.rng.pick(g.teams), guest, { isGuest: true });
  });
}
