// jest.config.cjs — plain JavaScript tests need no transform; with it off, Jest runs .mjs tests as ES modules
module.exports = { testEnvironment: "node", transform: {} };
