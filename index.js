// n8n loads the credential and nodes listed in package.json's "n8n" section; nothing to export here.
module.exports = {};
