import fc from 'fast-check';
import { GatewayError } from '../../src/errors/gateway-error';
import { explorerQuestion } from '../../src/console/explore-access';

describe("the access explorer's question (its query string)", () => {
  it('reads a user or a file and the page', () => {
    expect(explorerQuestion({ user: ' ana@x.example ', limit: '10', offset: '20' })).toEqual({ user: 'ana@x.example', offset: 20, limit: 10 });
    expect(explorerQuestion({ file: 'demo:a b', user: '' })).toEqual({ file: 'demo:a b', offset: 0, limit: 50 });
    expect(explorerQuestion({})).toEqual({ offset: 0, limit: 50 });
    expect(explorerQuestion({ user: 'ana@x.example', after: 'demo:a b' })).toEqual({ user: 'ana@x.example', offset: 0, limit: 50, after: 'demo:a b' });
  });

  it.each([
    [{ user: 'a@x', file: 'f' }, /not both/],
    [{ limit: '0' }, /limit/],
    [{ limit: '201' }, /limit/],
    [{ offset: '-1' }, /offset/],
    [{ offset: '1e3' }, /offset/],
    [{ user: 'x'.repeat(1001) }, /user/],
    [{ user: 'a@x', after: 'x'.repeat(1001) }, /after/],
  ])('refuses %j with INPUT_VALIDATION_FAILED naming the field', (query, message) => {
    expect(() => explorerQuestion(query as Record<string, string>)).toThrow(message);
    expect(() => explorerQuestion(query as Record<string, string>)).toThrow(GatewayError);
  });

  it('either answers a question or refuses with a validation error, whatever the query', () => {
    const field = fc.oneof(fc.string(), fc.constantFrom('', '0', '50', '200', '201', '-3', '9999999999'));
    fc.assert(
      fc.property(fc.record({ user: field, file: field, offset: field, limit: field }, { requiredKeys: [] }), (query) => {
        try {
          const q = explorerQuestion(query);
          return q.limit >= 1 && q.limit <= 200 && q.offset >= 0 && !(q.user && q.file);
        } catch (error) {
          return error instanceof GatewayError && error.code === 'INPUT_VALIDATION_FAILED';
        }
      }),
    );
  });
});
