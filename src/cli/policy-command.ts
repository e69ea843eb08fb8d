import type { Command } from 'commander';
import { loadConfig } from '../config/load-config';
import { createLogger } from '../logging/create-logger';
import { loadPolicy } from '../policies/load-policy';
import { PolicyError } from '../policies/policy-error';
import { PolicyGroupsRepository } from '../staging/repositories/policy-groups-repository';
import { ExplainInputError, explainStagedAccess, type StagedExplanation } from '../sync/explain-staged-access';
import { openStaging } from './open-staging';
import { misspeltAttributeWarnings } from './staged-policy-attributes';
import type { Runtime } from './runtime';

function formatExplanation(e: StagedExplanation, policyFile: string): string[] {
  const lines = [
    `${e.user.id} (${e.user.email}) on ${e.file.id}${e.file.status === 'deleted' ? ' (deleted)' : ''}: ${e.granted ? 'GRANTED' : 'DENIED'} by the policy ${policyFile}`,
  ];
  for (const note of e.notes) lines.push(`  note: ${note}`);
  for (const r of e.rules) lines.push(`  rule ${r.rule}: ${r.grants ? 'grants' : 'does not grant'} — ${r.because || 'no condition'}`);
  lines.push(e.explicit.length ? `  also granted by the file's own entries: ${e.explicit.join(', ')}` : "  the file's own entries do not name the user");
  if (e.otherGroups.length)
    lines.push(`  the file also lists the source's groups ${e.otherGroups.join(', ')} (see \`conformance\` who-can-see for their members)`);
  return lines;
}

export function registerPolicyCommand(program: Command, runtime: Runtime): void {
  const policy = program.command('policy').description('Access policies (docs/access-policies.md): check a policy file, explain a decision.');
  policy
    .command('check')
    .argument('<file>', 'policy file (YAML)')
    .description(
      'Validate a policy file: prints its rules, or the first refusal with the rule, line and column; warns of an attribute it reads that no staged document or user has when a staged one is close (a misspelling).',
    )
    .action(async function checkPolicy(file: string) {
      try {
        const parsed = await loadPolicy(file);
        runtime.print(`${file}: ${parsed.rules.length} rule(s): ${parsed.rules.map((r) => r.name).join(', ')}`);
        for (const warning of await misspeltAttributeWarnings(parsed, loadConfig(runtime.env))) runtime.print(warning);
      } catch (error) {
        if (!(error instanceof PolicyError)) throw error;
        runtime.print(error.message);
        runtime.setExitCode(1);
      }
    });
  policy
    .command('explain')
    .argument('<user>', 'user id (<source>:<native id>) or email')
    .argument('<document>', 'file id as /v1/files lists it (<source>:<native id>)')
    .option('--policy <file>', "policy file; default: the document's source's entry in ACCESS_POLICIES")
    .description(
      "Say which rule grants a user a document, or which test failed for each rule, from the attributes the last sync staged (the policy's synthesized groups).",
    )
    .action(async function explainPolicy(user: string, document: string, flags: { policy?: string }) {
      const config = loadConfig(runtime.env);
      const staging = await openStaging(config, createLogger({ level: 'warn' }));
      try {
        const file = await new PolicyGroupsRepository(staging.db).file(document);
        if (!file) throw new ExplainInputError(`no staged file has the id '${document}' (ids are <source>:<native id>, as /v1/files lists them)`);
        const policyFile = flags.policy ?? config.accessPolicies[file.source];
        if (policyFile === undefined)
          throw new ExplainInputError(`no policy given for source '${file.source}': pass --policy <file> or set ACCESS_POLICIES=${file.source}=<file>`);
        const explanation = await explainStagedAccess(staging.db, await loadPolicy(policyFile), user, document);
        for (const line of formatExplanation(explanation, policyFile)) runtime.print(line);
      } catch (error) {
        if (!(error instanceof ExplainInputError || error instanceof PolicyError)) throw error;
        runtime.print(`error: ${error.message}`);
        runtime.setExitCode(1);
      } finally {
        await staging.close();
      }
    });
}
