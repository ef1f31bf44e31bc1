import { handler } from '../../functions/system/unknown-route';

describe('the $default route', () => {
  it('answers 404 Unknown API endpoint for a path no route has', async () => {
    const result = await handler({ rawPath: '/api/v1/nothing', rawQueryString: '' });

    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body!)).toEqual({ message: 'Unknown API endpoint' });
  });

  it('sends a trailing-slash path to the same path without it, keeping the query', async () => {
    const result = await handler({ rawPath: '/api/v1/features/', rawQueryString: 'limit=5' });

    expect(result.statusCode).toBe(308);
    expect(result.headers!.location).toBe('/api/v1/features?limit=5');
  });

  // A browser reads `/\host` as `//host`, another host, so backslashes after the first slash go too.
  it.each(['//evil.example.com/', '///evil.example.com//', '/\\evil.example.com/', '/\\/\\evil.example.com/'])(
    'keeps %p a path on this host: one leading slash in the Location',
    async (rawPath) => {
      const result = await handler({ rawPath, rawQueryString: '' });

      expect(result.statusCode).toBe(308);
      expect(result.headers!.location).toBe('/evil.example.com');
    },
  );

  it('answers 404 for the root path', async () => {
    const result = await handler({ rawPath: '/', rawQueryString: '' });

    expect(result.statusCode).toBe(404);
  });
});
