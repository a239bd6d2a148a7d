import { CredentialTestContext, ExecuteContext, RoutingNode } from 'n8n-core';
import { Workflow, createRunExecutionData } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	INode,
	INodeCredentialTestResult,
	INodeType,
} from 'n8n-workflow';

import {
	HarnessNodeTypes,
	loadPackageCredentialType,
	loadPackageNodeType,
	PACKAGE_NODE_TYPES,
} from './nodeTypes';
import { buildAdditionalData, type EngineOptions } from './workflow';

/**
 * Runs a credential type's request-based `test` the way n8n's CredentialsTester
 * (packages/cli/src/services/credentials-tester.service.ts, testCredentials) does: the
 * request becomes the routing of a temporary NoOp node, run by n8n-core's RoutingNode with
 * the decrypted data (defaults applied), so `authenticate` and `httpRequestWithAuthentication`
 * are the real ones, and every key of `test.request` reaches n8n's HTTP helper as RoutingNode
 * copies it (`disableFollowRedirect` included). The verdict mirrors the tester's:
 * - the request throws and `error.cause.response` exists: the first `responseCode` rule
 *   whose value equals the status gives the message; otherwise a status outside 199..299
 *   gives the response's status text, or "Received HTTP status code: N" without one;
 * - it throws with `error.cause.code` (no response, e.g. ECONNREFUSED): the code is the message;
 * - anything else thrown: the error's message;
 * - it succeeds: "Connection successful!" (the tester's `responseSuccessBody` rules are not
 *   reproduced: this package's credential has none).
 * A credential without a `test` is tested by the function a node names in `testedBy`, given
 * n8n-core's CredentialTestContext and the credential's data, as the tester does.
 */
/**
 * A credential without a request `test` is tested by a node that names it with `testedBy`
 * (the tester's getCredentialTestFunction): that node's methods.credentialTest function.
 */
function functionTest(typeName: string): ICredentialTestFunction | undefined {
	for (const nodeTypeName of PACKAGE_NODE_TYPES) {
		const loaded = loadPackageNodeType(nodeTypeName);
		if (!loaded || 'nodeVersions' in loaded) continue; // the package has no versioned class
		const nodeType: INodeType = loaded;
		for (const { name, testedBy } of nodeType.description.credentials ?? []) {
			if (name === typeName && typeof testedBy === 'string') {
				return nodeType.methods?.credentialTest?.[testedBy];
			}
		}
	}
	return undefined;
}

export async function testCredential(
	typeName: string,
	data: ICredentialDataDecryptedObject,
	options: Pick<EngineOptions, 'credentialTypes'> = {},
): Promise<INodeCredentialTestResult> {
	const type =
		options.credentialTypes?.find((t) => t.name === typeName) ??
		loadPackageCredentialType(typeName);
	if (!type) throw new Error(`harness: unknown credential type "${typeName}"`);
	if (!type.test) {
		const test = functionTest(typeName);
		if (!test)
			return { status: 'Error', message: 'No testing function found for this credential.' };
		return await test.call(new CredentialTestContext(), {
			id: 'harness-test',
			name: 'harness test',
			type: typeName,
			data,
		});
	}
	const testRequest = type.test;

	const noOp: INodeType = {
		description: {
			displayName: 'No Operation, do nothing',
			name: 'noOp',
			group: ['organization'],
			version: 1,
			description: 'No Operation',
			defaults: { name: 'No Operation, do nothing' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: typeName, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'noOp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [typeName]: { id: 'harness-test', name: 'harness test' } },
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes({ noOp }),
	});
	const engine: EngineOptions = { credentialTypes: [type], credentials: { [typeName]: data } };
	const additionalData = buildAdditionalData(workflow, engine, 'internal');
	const decrypted = await additionalData.credentialsHelper.getDecrypted(
		additionalData,
		{ id: 'harness-test', name: 'harness test' },
		typeName,
		'internal',
	);
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData({ resultData: { runData: {} } }),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const routing = new RoutingNode(context, noOp, {
		id: 'harness-test',
		name: 'harness test',
		type: typeName,
		data: decrypted,
	});

	try {
		await routing.runNode();
	} catch (caught) {
		const error = caught as Error & {
			cause?: { code?: string; response?: { status: number; statusText?: string } };
		};
		const errorResponse = error.cause?.response;
		if (errorResponse) {
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && errorResponse.status === rule.properties.value) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (errorResponse.status < 199 || errorResponse.status > 299) {
				return {
					status: 'Error',
					message: errorResponse.statusText || `Received HTTP status code: ${errorResponse.status}`,
				};
			}
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: error.message.toString() };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
