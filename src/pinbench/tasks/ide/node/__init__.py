"""The IDE scenarios on npm-managed JavaScript and TypeScript repositories."""
