"""``DELETE /v1/memhq/users/{user_id}``: erase everything of one user in the project, with a receipt."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memhq.api.actors import actor_of
from memhq.api.auth import project_of
from memhq.api.control_serializers import ErasureReceiptSerializer
from memhq.api.serializers import UserIdField
from memhq.services.erasure import user_erase


class UserErasureView(APIView):
    @extend_schema(responses={200: ErasureReceiptSerializer})
    def delete(self, request: Request, user_id: str) -> Response:
        """An unknown user is not an error: nothing to remove, and the receipt says so (idempotent).
        Another erasure of the same user still running → 409 (``ErasureInProgress``)."""
        try:
            user_id = UserIdField().run_validation(user_id)
        except exceptions.ValidationError as error:
            raise exceptions.ValidationError({"user_id": error.detail}) from error
        erasure = user_erase(project=project_of(request), user_id=user_id, actor=actor_of(request))
        return Response(ErasureReceiptSerializer(erasure).data)
