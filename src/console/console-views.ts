import { Eta } from 'eta';

/**
 * The console's templates (eta: small, maintained, escapes every `<%= %>` by default, layouts and
 * partials built in; templates/console/), compiled once and cached.
 */
export class ConsoleViews {
  private readonly eta: Eta;

  constructor(readonly dir: string) {
    this.eta = new Eta({ views: dir, cache: true, autoEscape: true });
  }

  render(template: string, data: object): Promise<string> {
    return this.eta.renderAsync(template, data);
  }
}
