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

  it('answers 404 for the root path', async () => {
    const result = await handler({ rawPath: '/', rawQueryString: '' });

    expect(result.statusCode).toBe(404);
  });
});
