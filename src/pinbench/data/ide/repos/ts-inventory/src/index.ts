export * from './_generated_catalog';
export * from './item';
export * from './warehouse';
export * from './pricing';
