export const handler = async () => ({ statusCode: 501, body: 'not implemented' });
