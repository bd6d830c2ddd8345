'use strict';

const duration = require('./duration');
const range = require('./range');

module.exports = {
  ...duration,
  ...range,
};

module.exports.version = '0.4.1';
