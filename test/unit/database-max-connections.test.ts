import { ConfigError, loadConfig } from '../../src/config/load-config';

describe('DATABASE_MAX_CONNECTIONS', () => {
  it('defaults to 20 and refuses fewer than 2', () => {
    expect(loadConfig({}).databaseMaxConnections).toBe(20);
    expect(loadConfig({ DATABASE_MAX_CONNECTIONS: '7' }).databaseMaxConnections).toBe(7);
    for (const bad of ['1', '0', '-3', '2.5', 'many']) expect(() => loadConfig({ DATABASE_MAX_CONNECTIONS: bad })).toThrow(ConfigError);
  });
});
