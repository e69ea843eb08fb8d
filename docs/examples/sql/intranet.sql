-- A small intranet: people, their roles, teams, documents and who may read them, plus a change
-- table. Plain SQL that SQLite, Postgres and MariaDB all run (docs/sql-adapter.md).
create table people (
  id integer primary key,
  email varchar(200) not null,
  full_name varchar(200),
  is_active integer not null,
  department varchar(50),
  clearance integer
);
create table role_assignments (
  person_id integer not null,
  role varchar(50) not null
);
create table teams (
  id varchar(50) primary key,
  name varchar(200)
);
create table team_members (
  team_id varchar(50) not null,
  member_id varchar(50) not null,
  member_type varchar(10) not null
);
create table documents (
  id integer primary key,
  title varchar(300) not null,
  body text,
  kind varchar(50),
  department varchar(50),
  level integer,
  tags varchar(200),
  updated_at timestamp not null
);
create table document_access (
  document_id integer not null,
  principal_type varchar(10) not null,
  principal_id varchar(50)
);
create table document_changes (
  seq integer primary key,
  document_id integer not null,
  op varchar(10) not null
);

insert into people (id, email, full_name, is_active, department, clearance) values
  (1, 'ana@example.com', 'Ana Alves', 1, 'finance', 3),
  (2, 'bo@example.com', 'Bo Berg', 1, 'finance', 1),
  (3, 'chen@example.com', 'Chen Cho', 1, 'legal', 2),
  (4, 'dee@example.com', 'Dee Diaz', 1, 'research', 2),
  (5, 'eli@example.com', 'Eli Eze', 0, 'finance', 3);

insert into role_assignments (person_id, role) values
  (1, 'editor'),
  (3, 'auditor'),
  (4, 'editor');

insert into teams (id, name) values
  ('finance', 'Finance team'),
  ('staff', 'All staff');

insert into team_members (team_id, member_id, member_type) values
  ('finance', '1', 'USER'),
  ('finance', '2', 'USER'),
  ('staff', 'finance', 'GROUP'),
  ('staff', '3', 'USER'),
  ('staff', '4', 'USER');

insert into documents (id, title, body, kind, department, level, tags, updated_at) values
  (1, 'Travel policy', '<p>Book trains for trips under four hours.</p>', 'policy', 'finance', 0, 'travel,expenses', '2026-04-01 09:00:00'),
  (2, 'Q3 budget', '<p>Spending by team, quarter three.</p>', 'report', 'finance', 2, 'budget', '2026-04-01 09:00:00'),
  (3, 'Contract templates', '<p>Standard clauses for suppliers.</p>', 'guide', 'legal', 1, 'contracts', '2026-04-01 09:00:00'),
  (4, 'Lab safety', '<p>Goggles on, always.</p>', 'policy', 'research', 0, 'safety', '2026-04-01 09:05:00'),
  (5, 'Board minutes', '<p>Decisions of the April board.</p>', 'minutes', 'finance', 3, 'board', '2026-04-01 09:05:00'),
  (6, 'Company handbook', '<p>How we work.</p>', 'handbook', 'all', 0, 'onboarding', '2026-04-01 09:10:00');

insert into document_access (document_id, principal_type, principal_id) values
  (1, 'GROUP', 'staff'),
  (2, 'GROUP', 'finance'),
  (3, 'GROUP', 'staff'),
  (3, 'USER', '3'),
  (4, 'USER', '4'),
  (5, 'USER', '1'),
  (6, 'EVERYONE', null);
